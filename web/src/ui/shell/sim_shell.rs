//! The shell every live simulation widget shares ([`SimShell`]): it opens the model its kind
//! ([`SimKind`], one per mechanism) asks for, hands clicks, keys, form edits and animation frames
//! to the controller ([`Live`], which also keeps the playground's page address in step), and lays
//! out the kind's panels in the common frame ([`sim_frame`]).
//!
//! The shell is one Yew component for every mechanism: it holds its block as a `dyn` [`SimWidget`]
//! and its model as a `dyn` [`crate::live::model::LiveModel`], so the component, the controller
//! and the frame are compiled once. A mechanism's [`SimKind`] stays typed; [`Kinded`] erases it,
//! and only that thin adapter (open, view, compare) is compiled per mechanism.

use std::any::Any;
use std::rc::Rc;

use herdlab_core::sim::Actor;
use yew::prelude::*;

use crate::lesson::grammar::SimBlock;
use crate::lesson::parts::{Placing, QueryStart, Shape, View, Widget};
use crate::live::model::{model_as, LiveModel};
use crate::live::open::Opening;
use crate::live::sim_model::Action;
use crate::live::{Live, LiveMsg, Place};
use crate::ui::shell::sim_frame::{sim_frame, BlockHead, SimFrame};

/// One kind of simulation widget: its block's scenario, the playground's start, its
/// counterexample, its model, how it opens and what it shows.
pub trait SimKind: Sized + 'static {
    /// The block's scenario.
    type Params: PartialEq + 'static;
    /// What the page address asks of the playground.
    type Init: PartialEq + 'static;
    /// A counterexample to step through (a check block's replay).
    type Counterexample: PartialEq + 'static;
    /// The model the widget drives.
    type Model: LiveModel;
    /// The model the widget opens with.
    fn open(props: &SimProps<Self>) -> Opening<Self::Model>;
    /// The kind's panels, over the model now (`m`, the one [`SimKind::open`] made, driven by
    /// `live`); `on_network` steps the network actor.
    fn frame(
        props: &SimProps<Self>,
        live: &Live,
        m: &Self::Model,
        on_network: &Callback<()>,
    ) -> SimFrame;
}

/// What a kind's widget is opened with: its block, and for the playground what the page address
/// asks; for a check block's replay, its counterexample.
pub struct SimProps<K: SimKind> {
    /// The block.
    pub spec: Rc<SimBlock<K::Params>>,
    /// For the playground: what the page address asks for.
    pub init: Option<Rc<K::Init>>,
    /// A counterexample to step through (a check block's replay).
    pub counterexample: Option<Rc<K::Counterexample>>,
}

impl<K: SimKind> PartialEq for SimProps<K> {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
            && self.init == other.init
            && self.counterexample == other.counterexample
    }
}

impl<K: SimKind> SimProps<K> {
    /// Whether this is the lesson's playground (the simulation the page address follows).
    pub fn main(&self) -> bool {
        self.init.is_some()
    }
}

/// A simulation widget's block, whatever its mechanism: what the shell asks of it.
pub trait SimWidget {
    /// The model it opens with.
    fn open(&self) -> Opening<Box<dyn LiveModel>>;
    /// Its panels over `live`'s model now.
    fn frame(&self, live: &Live, on_network: &Callback<()>) -> SimFrame;
    /// What the frame shows of the block itself.
    fn head(&self) -> BlockHead<'_>;
    /// Whether it is the lesson's playground.
    fn main(&self) -> bool;
    /// Whether `other` is the same block (same kind, equal props).
    fn same(&self, other: &dyn SimWidget) -> bool;
    /// Itself, for [`SimWidget::same`].
    fn as_any(&self) -> &dyn Any;
}

/// A kind's props as a [`SimWidget`].
pub struct Kinded<K: SimKind>(pub SimProps<K>);

impl<K: SimKind> SimWidget for Kinded<K> {
    fn open(&self) -> Opening<Box<dyn LiveModel>> {
        let o = K::open(&self.0);
        Opening {
            model: Box::new(o.model),
            replay_error: o.replay_error,
            autoplay: o.autoplay,
        }
    }
    fn frame(&self, live: &Live, on_network: &Callback<()>) -> SimFrame {
        K::frame(&self.0, live, model_as(&*live.model), on_network)
    }
    fn head(&self) -> BlockHead<'_> {
        let spec = &self.0.spec;
        BlockHead {
            id: &spec.id,
            errors: &spec.errors,
            controls: spec.controls,
            main: self.0.main(),
        }
    }
    fn main(&self) -> bool {
        self.0.main()
    }
    fn same(&self, other: &dyn SimWidget) -> bool {
        other
            .as_any()
            .downcast_ref::<Self>()
            .is_some_and(|o| o.0 == self.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Props of a [`SimShell`].
#[derive(Properties)]
pub struct SimShellProps {
    /// The block (with the playground's start, or a counterexample).
    pub widget: Rc<dyn SimWidget>,
    /// The lesson it is in (where "copy link" leads).
    pub slug: AttrValue,
    /// Whether the page's keyboard shortcuts drive this widget.
    #[prop_or_default]
    pub keyboard: bool,
}

impl PartialEq for SimShellProps {
    fn eq(&self, other: &Self) -> bool {
        self.slug == other.slug
            && self.keyboard == other.keyboard
            && (Rc::ptr_eq(&self.widget, &other.widget) || self.widget.same(&*other.widget))
    }
}

/// In the lazily loaded bundle, what a widget handed over by the main bundle
/// ([`crate::ui::shell::handoff`]) tells its shell (a Yew context around it): whether it was the
/// lesson's playground (only then does it keep the page address), and for a replay the state to
/// step it to. Its timeline opens at once; "Hide the timeline" hands it back.
#[cfg(feature = "timeline")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handoff {
    /// It was the lesson's playground.
    pub main: bool,
    /// The state to [`crate::ui::shell::handoff::restore`] once opened (a replay, which opens
    /// at step 0).
    pub restore: Option<AttrValue>,
}

/// A live simulation widget, of any kind.
pub struct SimShell {
    live: Live,
    replay_error: Option<String>,
    on_network: Callback<()>,
    /// Handed over by the main bundle (the lazy bundle only).
    #[cfg(feature = "timeline")]
    handoff: Option<Handoff>,
    /// Without the timeline: once "Show the timeline" is pressed, the query the lazily loaded
    /// bundle opens this widget at.
    #[cfg(not(feature = "timeline"))]
    handed: Option<AttrValue>,
    /// Without the timeline: how the lazily loaded bundle hands the widget back (one callback,
    /// so that `Lazy`'s props stay equal).
    #[cfg(not(feature = "timeline"))]
    on_back: Callback<String>,
    /// Without the timeline: just handed back, the focus goes to "Show the timeline".
    #[cfg(not(feature = "timeline"))]
    focus_toggle: bool,
}

impl Component for SimShell {
    type Message = LiveMsg;
    type Properties = SimShellProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        #[allow(unused_mut)]
        let Opening {
            mut model,
            replay_error,
            autoplay,
        } = props.widget.open();
        #[cfg(feature = "timeline")]
        let handoff = ctx
            .link()
            .context::<Handoff>(Callback::noop())
            .map(|(h, _)| h);
        #[cfg(feature = "timeline")]
        if let Some(q) = handoff.as_ref().and_then(|h| h.restore.as_ref()) {
            crate::ui::shell::handoff::restore(&mut *model, q);
        }
        #[allow(unused_mut)]
        let mut live = Live::new(ctx, model, autoplay, props.keyboard);
        #[cfg(feature = "timeline")]
        if handoff.is_some() {
            live.timeline.open = true;
        }
        SimShell {
            live,
            replay_error,
            on_network: ctx
                .link()
                .callback(|_| LiveMsg::Act(Action::StepActor(Actor::Network))),
            #[cfg(feature = "timeline")]
            handoff,
            #[cfg(not(feature = "timeline"))]
            handed: None,
            #[cfg(not(feature = "timeline"))]
            on_back: ctx.link().callback(LiveMsg::HandBack),
            #[cfg(not(feature = "timeline"))]
            focus_toggle: false,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: LiveMsg) -> bool {
        let props = ctx.props();
        let at = Place {
            slug: &props.slug,
            main: self.main(props),
        };
        #[cfg(not(feature = "timeline"))]
        {
            if let LiveMsg::HandBack(state) = msg {
                self.hand_back(ctx, &at, &state);
                return true;
            }
            if self.handed.is_some() {
                // handed over: the lazy bundle's widget has the keys, the frames and the address
                return false;
            }
            if let LiveMsg::Timeline(true) = msg {
                if self.live.model.play().playing {
                    self.live
                        .update(ctx.link(), &at, LiveMsg::Act(Action::Pause));
                }
                self.handed = Some(self.handoff_query(ctx).into());
                return true;
            }
        }
        #[cfg(feature = "timeline")]
        if self.handoff.is_some() {
            if let LiveMsg::Timeline(false) = msg {
                // handed over: "Hide the timeline" hands the widget back at its state
                if self.live.model.play().playing {
                    self.live
                        .update(ctx.link(), &at, LiveMsg::Act(Action::Pause));
                }
                self.hand_back();
                return false;
            }
        }
        self.live.update(ctx.link(), &at, msg)
    }

    fn rendered(&mut self, _ctx: &Context<Self>, first: bool) {
        self.live.rendered();
        #[cfg(feature = "timeline")]
        if first && self.handoff.is_some() {
            self.focus_timeline();
        }
        #[cfg(not(feature = "timeline"))]
        {
            let _ = first;
            if std::mem::take(&mut self.focus_toggle) {
                self.focus_toggle();
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let w = &*props.widget;
        #[cfg(not(feature = "timeline"))]
        if let Some(q) = &self.handed {
            return html! { <crate::ui::lazy::Lazy what="timeline" query={q.clone()} on_message={self.on_back.clone()} /> };
        }
        let mut frame = w.frame(&self.live, &self.on_network);
        let after = std::mem::take(&mut frame.after_board);
        frame.after_board = html! { <>{ after }{ self.timeline(ctx) }</> };
        let mut head = w.head();
        if head.main && !self.main(props) {
            head.main = false;
            frame.kicker = crate::ui::shell::sim_frame::kicker(false);
        }
        sim_frame(
            head,
            props.keyboard,
            &self.live,
            self.replay_error.as_deref(),
            frame,
        )
    }
}

impl SimShell {
    /// Whether it is the lesson's playground (the page address follows it).
    fn main(&self, props: &SimShellProps) -> bool {
        #[cfg(feature = "timeline")]
        if let Some(h) = &self.handoff {
            return props.widget.main() && h.main;
        }
        props.widget.main()
    }
}

#[cfg(not(feature = "timeline"))]
impl SimShell {
    /// "Show the timeline", which this build does not carry: the button hands the widget to the
    /// lazily loaded bundle ([`crate::ui::shell::handoff`]).
    fn timeline(&self, ctx: &Context<Self>) -> Html {
        if !self.live.model.has_timeline() {
            return Html::default();
        }
        let open = ctx.link().callback(|_: MouseEvent| LiveMsg::Timeline(true));
        html! {
            <button class="timeline-toggle" data-testid="timeline-toggle" aria-expanded="false" onclick={open}>
                { "Show the timeline" }
            </button>
        }
    }

    /// The widget's block, place and state, for the lazily loaded bundle (a check block's replay
    /// with its counterexample, which its check block told).
    fn handoff_query(&self, ctx: &Context<Self>) -> String {
        let props = ctx.props();
        let w = &*props.widget;
        let head = w.head();
        crate::ui::shell::handoff::query(&crate::ui::shell::handoff::Handed {
            state: self.live.model.link_query(),
            id: head.id.to_string(),
            controls: head.controls,
            caption: w.frame(&self.live, &self.on_network).caption,
            slug: props.slug.to_string(),
            main: head.main,
            keyboard: props.keyboard,
            replay: crate::ui::shell::handoff::told(head.id),
        })
    }

    /// The lazily loaded bundle handed the widget back at `state`: open the block again, step it
    /// there, and show it with the focus on "Show the timeline" (the page address, for the
    /// playground, keeps the step).
    fn hand_back(&mut self, ctx: &Context<Self>, at: &crate::live::Place, state: &str) {
        let props = ctx.props();
        let mut model = props.widget.open().model;
        crate::ui::shell::handoff::restore(&mut *model, state);
        self.live.form = model.form();
        self.live.model = model;
        self.live.link = None;
        self.live.write_url(at, true);
        self.handed = None;
        self.focus_toggle = true;
    }

    /// Focus "Show the timeline" (a widget just handed back: the timeline that had the focus is
    /// gone).
    fn focus_toggle(&self) {
        if let Some(r) = self.live.root.get() {
            let _ = js_sys::Function::new_with_args(
                "r",
                "r.querySelector('[data-testid=timeline-toggle]')?.focus()",
            )
            .call1(&wasm_bindgen::JsValue::NULL, &r);
        }
    }
}

#[cfg(feature = "timeline")]
impl SimShell {
    /// "Hide the timeline" in a widget handed over: send its state up to the main bundle's
    /// `Lazy` ([`crate::ui::shell::handoff::BACK_EVENT`]), which shows the plain widget again.
    fn hand_back(&self) {
        let Some(root) = self.live.root.cast::<web_sys::Element>() else {
            return;
        };
        let state = self.live.model.link_query();
        // from a task of its own: the main bundle unmounts this app when it takes the widget back
        wasm_bindgen_futures::spawn_local(async move {
            let send = js_sys::Function::new_with_args(
                "el,name,q",
                "el.dispatchEvent(new CustomEvent(name, {bubbles: true, detail: q}))",
            );
            let _ = send.call3(
                &wasm_bindgen::JsValue::NULL,
                &root,
                &crate::ui::shell::handoff::BACK_EVENT.into(),
                &state.into(),
            );
        });
    }

    /// Focus the timeline (a widget just handed over: its button, which had the focus, is gone).
    fn focus_timeline(&self) {
        use wasm_bindgen::JsCast;
        let canvas = self
            .live
            .root
            .cast::<web_sys::Element>()
            .and_then(|r| {
                r.query_selector("[data-testid=timeline-canvas]")
                    .ok()
                    .flatten()
            })
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(c) = canvas {
            let _ = c.focus();
        }
    }

    /// The timeline's toggle, and the timeline when open.
    fn timeline(&self, ctx: &Context<Self>) -> Html {
        let live = &self.live;
        let built = if live.timeline.open {
            live.timeline.get(&*live.model)
        } else {
            None
        };
        let Some(tl) = built else {
            if live.model.timeline_source().is_none() {
                return Html::default();
            }
            let open = ctx.link().callback(|_: MouseEvent| LiveMsg::Timeline(true));
            return html! {
                <button class="timeline-toggle" data-testid="timeline-toggle" aria-expanded="false" onclick={open}>
                    { "Show the timeline" }
                </button>
            };
        };
        let close = ctx
            .link()
            .callback(|_: MouseEvent| LiveMsg::Timeline(false));
        let on_seek = ctx.link().callback(|k: u64| LiveMsg::Act(Action::Seek(k)));
        html! {
            <>
                <button class="timeline-toggle" data-testid="timeline-toggle" aria-expanded="true" onclick={close}>
                    { "Hide the timeline" }
                </button>
                <crate::ui::timeline::TimelineView timeline={tl} cursor={live.model.position()} on_seek={Some(on_seek)} />
            </>
        }
    }
}

/// The widget of kind `K` over `props`, in the page (a check block's replay shows it so).
pub fn sim_html<K: SimKind>(props: SimProps<K>, slug: AttrValue) -> Html {
    shell_html(Rc::new(Kinded(props)), slug)
}

fn shell_html(widget: Rc<dyn SimWidget>, slug: AttrValue) -> Html {
    html! { <SimShell widget={widget} slug={slug} /> }
}

fn sim_view(widget: Rc<dyn SimWidget>) -> View {
    Rc::new(move |key: String, slug: AttrValue, keyboard: bool| {
        html! { <SimShell key={key} widget={widget.clone()} slug={slug} keyboard={keyboard} /> }
    })
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
    #[cfg(test)]
    let init_text = init.as_ref().map(|i| format!("{i:?}"));
    let spec = Rc::new(spec);
    Widget {
        mechanism,
        shape: Shape::Sim,
        id: spec.id.clone(),
        main: spec.main,
        errors: spec.errors.clone(),
        #[cfg(test)]
        init: init_text,
        view: sim_view(Rc::new(Kinded::<K>(SimProps {
            spec,
            init,
            counterexample: None,
        }))),
    }
}
