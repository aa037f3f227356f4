//! The shell every side-by-side comparison shares ([`CompareShell`]): it opens the sides its kind
//! ([`CompareKind`], one per mechanism) asks for, hands the shared buttons, keys and animation
//! frames to the controller ([`Pair`]), and lays out the kind's table and halves in the common
//! frame ([`compare_frame`]).

use std::rc::Rc;

use yew::prelude::*;

use crate::lesson::parts::{Shape, Widget};
use crate::live::model::LiveModel;
use crate::live::pair::{Pair, PairMsg};
use crate::ui::shell::compare_frame::{compare_frame, CompareFrame};

/// One kind of comparison: its block, its model, how its sides open and what it shows.
pub trait CompareKind: PartialEq + Sized + 'static {
    /// The block.
    type Spec: PartialEq + 'static;
    /// The model of each side.
    type Model: LiveModel + 'static;
    /// The sides, in order, each with its name in the announcement.
    fn open(spec: &Self::Spec) -> Vec<(String, Self::Model)>;
    /// The kind's part of the widget, over the sides now.
    fn frame<'a>(spec: &'a Self::Spec, pair: &Pair<Self::Model>) -> CompareFrame<'a>;
}

/// Props of a [`CompareShell`].
#[derive(Properties, PartialEq)]
pub struct CompareProps<K: CompareKind> {
    /// The block.
    pub spec: Rc<K::Spec>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

/// A side-by-side comparison of kind `K`.
pub struct CompareShell<K: CompareKind> {
    pair: Pair<K::Model>,
}

impl<K: CompareKind> Component for CompareShell<K> {
    type Message = PairMsg;
    type Properties = CompareProps<K>;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        CompareShell {
            pair: Pair::new(ctx, K::open(&props.spec), props.keyboard),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: PairMsg) -> bool {
        self.pair.update(ctx.link(), msg)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        compare_frame(&self.pair, K::frame(&ctx.props().spec, &self.pair))
    }
}

/// A lesson's comparison block of kind `K` (of `mechanism`), already placed (its `id` unique, its
/// `errors` final).
pub fn compare_part<K: CompareKind>(
    mechanism: &'static str,
    id: String,
    errors: Vec<String>,
    spec: K::Spec,
) -> Widget {
    let spec = Rc::new(spec);
    Widget {
        mechanism,
        shape: Shape::Compare,
        id,
        main: false,
        errors,
        init: None,
        view: Rc::new(move |key: String, _slug: AttrValue, keyboard: bool| {
            html! { <CompareShell<K> key={key} spec={spec.clone()} keyboard={keyboard} /> }
        }),
    }
}
