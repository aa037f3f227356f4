//! The shell every side-by-side comparison shares ([`CompareShell`]): it opens the sides its kind
//! ([`CompareKind`]: herd, locks, accept) asks for, hands the shared buttons, keys and animation
//! frames to the controller ([`Pair`]), and lays out the kind's table and halves in the common
//! frame ([`compare_frame`]).

use std::rc::Rc;

use yew::prelude::*;

use crate::components::compare_frame::{compare_frame, CompareFrame};
use crate::live_model::LiveModel;
use crate::pair::{Pair, PairMsg};

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
