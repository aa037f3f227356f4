//! The shell every side-by-side comparison shares ([`CompareShell`]): it opens the sides its kind
//! ([`CompareKind`], one per mechanism) asks for, hands the shared buttons, keys and animation
//! frames to the controller ([`Pair`]), and lays out the kind's table and halves in the common
//! frame ([`compare_frame`]).
//!
//! As for one simulation (`sim_shell`), the shell is one Yew component for every mechanism: its
//! block is a `dyn` [`CompareWidget`], its sides `dyn` [`LiveModel`]s; [`Compared`] erases a
//! mechanism's typed [`CompareKind`], and only that thin adapter is compiled per mechanism.

use std::any::Any;
use std::rc::Rc;

use yew::prelude::*;

use crate::lesson::parts::{Shape, Widget};
use crate::live::model::{model_as, LiveModel};
use crate::live::pair::{Pair, PairMsg};
use crate::ui::shell::compare_frame::{compare_frame, CompareFrame};

/// One kind of comparison: its block, its model, how its sides open and what it shows.
pub trait CompareKind: Sized + 'static {
    /// The block.
    type Spec: PartialEq + 'static;
    /// The model of each side.
    type Model: LiveModel;
    /// The sides, in order, each with its name in the announcement.
    fn open(spec: &Self::Spec) -> Vec<(String, Self::Model)>;
    /// The kind's part of the widget, over the sides now (`sides`: `pair`'s models, in order, as
    /// [`CompareKind::open`] made them).
    fn frame<'a>(spec: &'a Self::Spec, pair: &Pair, sides: &[&Self::Model]) -> CompareFrame<'a>;
}

/// A comparison block, whatever its mechanism: what the shell asks of it.
pub trait CompareWidget {
    /// The sides, in order, each with its name in the announcement.
    fn open(&self) -> Vec<(String, Box<dyn LiveModel>)>;
    /// Its part of the widget over `pair`'s sides now.
    fn frame(&self, pair: &Pair) -> CompareFrame<'_>;
    /// Whether `other` is the same block (same kind, equal spec).
    fn same(&self, other: &dyn CompareWidget) -> bool;
    /// Itself, for [`CompareWidget::same`].
    fn as_any(&self) -> &dyn Any;
}

/// A kind's block as a [`CompareWidget`].
pub struct Compared<K: CompareKind>(pub K::Spec);

impl<K: CompareKind> CompareWidget for Compared<K> {
    fn open(&self) -> Vec<(String, Box<dyn LiveModel>)> {
        K::open(&self.0)
            .into_iter()
            .map(|(name, m)| (name, Box::new(m) as Box<dyn LiveModel>))
            .collect()
    }
    fn frame(&self, pair: &Pair) -> CompareFrame<'_> {
        let sides: Vec<&K::Model> = pair.sides.iter().map(|m| model_as(&**m)).collect();
        K::frame(&self.0, pair, &sides)
    }
    fn same(&self, other: &dyn CompareWidget) -> bool {
        other
            .as_any()
            .downcast_ref::<Self>()
            .is_some_and(|o| o.0 == self.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Props of a [`CompareShell`].
#[derive(Properties)]
pub struct CompareProps {
    /// The block.
    pub spec: Rc<dyn CompareWidget>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

impl PartialEq for CompareProps {
    fn eq(&self, other: &Self) -> bool {
        self.keyboard == other.keyboard
            && (Rc::ptr_eq(&self.spec, &other.spec) || self.spec.same(&*other.spec))
    }
}

/// A side-by-side comparison, of any kind.
pub struct CompareShell {
    pair: Pair,
}

impl Component for CompareShell {
    type Message = PairMsg;
    type Properties = CompareProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        CompareShell {
            pair: Pair::new(ctx, props.spec.open(), props.keyboard),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: PairMsg) -> bool {
        self.pair.update(ctx.link(), msg)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        compare_frame(&self.pair, ctx.props().spec.frame(&self.pair))
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
    compare_widget(mechanism, id, errors, Rc::new(Compared::<K>(spec)))
}

fn compare_widget(
    mechanism: &'static str,
    id: String,
    errors: Vec<String>,
    spec: Rc<dyn CompareWidget>,
) -> Widget {
    Widget {
        mechanism,
        shape: Shape::Compare,
        id,
        main: false,
        errors,
        #[cfg(test)]
        init: None,
        view: Rc::new(move |key: String, _slug: AttrValue, keyboard: bool| {
            html! { <CompareShell key={key} spec={spec.clone()} keyboard={keyboard} /> }
        }),
    }
}
