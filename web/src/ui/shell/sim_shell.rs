//! The shell every live simulation widget shares ([`SimShell`]): it opens the model its kind
//! ([`SimKind`], one per mechanism) asks for, hands clicks, keys, form edits and animation frames
//! to the controller ([`Live`], which also keeps the playground's page address in step), and lays
//! out the kind's panels in the common frame ([`sim_frame`]).

use std::rc::Rc;

use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::lesson::grammar::SimBlock;
use crate::lesson::parts::{Placing, QueryStart, Shape, Widget};
use crate::live::model::LiveModel;
use crate::live::open::Opening;
use crate::live::sim_model::Action;
use crate::live::{Live, LiveMsg, Place};
use crate::ui::shell::sim_frame::{sim_frame, SimFrame};

/// One kind of simulation widget: its block's scenario, the playground's start, its
/// counterexample, its model, how it opens and what it shows.
pub trait SimKind: PartialEq + Sized + 'static {
    /// The block's scenario.
    type Params: PartialEq + 'static;
    /// What the page address asks of the playground.
    type Init: PartialEq + 'static;
    /// A counterexample to step through (a check block's replay).
    type Counterexample: PartialEq + 'static;
    /// The model the widget drives.
    type Model: LiveModel + 'static;
    /// The model the widget opens with.
    fn open(props: &SimProps<Self>) -> Opening<Self::Model>;
    /// The kind's panels, over the model now; `on_network` steps the network actor.
    fn frame(
        props: &SimProps<Self>,
        live: &Live<Self::Model>,
        on_network: &Callback<()>,
    ) -> SimFrame;
}

/// Props of a [`SimShell`].
#[derive(Properties, PartialEq)]
pub struct SimProps<K: SimKind> {
    /// The block.
    pub spec: Rc<SimBlock<K::Params>>,
    /// The lesson it is in (where "copy link" leads).
    pub slug: AttrValue,
    /// For the playground: what the page address asks for.
    #[prop_or_default]
    pub init: Option<Rc<K::Init>>,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
    /// A counterexample to step through (a check block's replay).
    #[prop_or_default]
    pub counterexample: Option<Rc<K::Counterexample>>,
}

impl<K: SimKind> SimProps<K> {
    /// Whether this is the lesson's playground (the simulation the page address follows).
    pub fn main(&self) -> bool {
        self.init.is_some()
    }
}

/// A live simulation widget of kind `K`.
pub struct SimShell<K: SimKind> {
    live: Live<K::Model>,
    replay_error: Option<String>,
    on_network: Callback<()>,
}

impl<K: SimKind> Component for SimShell<K> {
    type Message = LiveMsg;
    type Properties = SimProps<K>;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let Opening {
            model,
            replay_error,
            autoplay,
        } = K::open(props);
        SimShell {
            live: Live::new(ctx, model, autoplay, props.keyboard),
            replay_error,
            on_network: ctx
                .link()
                .callback(|_| LiveMsg::Act(Action::StepActor(Actor::Network))),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: LiveMsg) -> bool {
        let props = ctx.props();
        let at = Place {
            slug: &props.slug,
            main: props.main(),
        };
        self.live.update(ctx.link(), &at, msg)
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        self.live.rendered();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let frame = K::frame(props, &self.live, &self.on_network);
        sim_frame(
            &props.spec,
            props.main(),
            props.keyboard,
            &self.live,
            self.replay_error.as_deref(),
            frame,
        )
    }
}

/// A lesson's simulation block of kind `K` (of `mechanism`), placed at part `at`: the page query
/// goes over it (`resolve`) when it is the playground.
pub fn sim_part<K: SimKind>(
    mechanism: &'static str,
    mut spec: SimBlock<K::Params>,
    place: &mut Placing,
    at: usize,
    resolve: impl FnOnce(&SimBlock<K::Params>) -> K::Init,
) -> Widget
where
    K::Params: std::fmt::Debug,
    K::Init: QueryStart + std::fmt::Debug,
{
    let init = place.playground(&mut spec, at, resolve);
    let spec = Rc::new(spec);
    Widget {
        mechanism,
        shape: Shape::Sim,
        id: spec.id.clone(),
        main: spec.main,
        errors: spec.errors.clone(),
        init: init.as_ref().map(|i| format!("{i:?}")),
        view: Rc::new(move |key: String, slug: AttrValue, keyboard: bool| {
            html! {
                <SimShell<K> key={key} spec={spec.clone()} slug={slug} init={init.clone()} keyboard={keyboard} />
            }
        }),
    }
}
