//! What a lesson page is made of, whatever the mechanisms in it: prose, predict blocks, check
//! blocks and live widgets ([`Widget`]), and the placing rules every widget obeys while the page is
//! built ([`Placing`]: ids unique in a lesson, one playground, the page query over it, the page's
//! keys on the playground or else the first widget). A mechanism makes its widgets (through the
//! registry, `crate::mechanisms`); this file knows none of them.

use std::collections::HashSet;
use std::fmt::Debug;
use std::rc::Rc;

use herdlab_core::scenario::ParamError;
use yew::prelude::*;

use crate::lesson::grammar::{PlaygroundInit, SimBlock};

/// The shape of a widget block: one fence kind each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One simulation (```` ```herdlab-sim ````).
    Sim,
    /// Simulations side by side (```` ```herdlab-compare ````).
    Compare,
    /// The model checker (```` ```herdlab-check ````).
    Check,
}

/// Draws a widget: its key among the page's parts, the lesson's slug, and whether the page's
/// keyboard shortcuts drive it.
pub type View = Rc<dyn Fn(String, AttrValue, bool) -> Html>;

/// One live widget of a lesson, as its mechanism parsed and placed it.
#[derive(Clone)]
pub struct Widget {
    /// The mechanism that made it (its `mechanism=` name).
    pub mechanism: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// Its id (unique in the lesson once placed).
    pub id: String,
    /// Whether it is the lesson's playground.
    pub main: bool,
    /// What was wrong with its block (shown in the widget).
    pub errors: Vec<String>,
    /// The playground's start, resolved from the page query (`Debug`-printed, for the tests only:
    /// the site does not carry the mechanisms' `Debug` code for it).
    #[cfg(test)]
    pub init: Option<String>,
    /// Draws it.
    pub view: View,
}

impl Debug for Widget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Widget");
        d.field("mechanism", &self.mechanism)
            .field("shape", &self.shape)
            .field("id", &self.id)
            .field("main", &self.main)
            .field("errors", &self.errors);
        #[cfg(test)]
        d.field("init", &self.init);
        d.finish()
    }
}

/// A playground's start, resolved from the page query: what was wrong with the query.
pub trait QueryStart {
    /// The page query's bad parameters.
    fn query_errors(&self) -> &[ParamError];
}

impl<P> QueryStart for PlaygroundInit<P> {
    fn query_errors(&self) -> &[ParamError] {
        &self.errors
    }
}

/// Make `id` unique among `seen`: a clash is reported and the id numbered (`a-2`, `a-3`…).
pub fn unique(id: String, seen: &mut HashSet<String>, errors: &mut Vec<String>) -> String {
    if seen.insert(id.clone()) {
        return id;
    }
    errors.push(format!(
        "id: '{id}' is used by an earlier block; ids must be unique in a lesson"
    ));
    let mut n = 2;
    loop {
        let next = format!("{id}-{n}");
        if seen.insert(next.clone()) {
            return next;
        }
        n += 1;
    }
}

/// Where the lesson's widgets stand, while its parts are built.
#[derive(Default)]
pub struct Placing {
    /// The ids taken so far.
    pub seen: HashSet<String>,
    /// The part that is the playground.
    pub main_at: Option<usize>,
    /// The first widget's part.
    pub first_widget: Option<usize>,
    /// What was wrong with the page query (over the playground).
    pub url_errors: Vec<String>,
}

impl Placing {
    /// Place a widget at part `at`: make its `id` unique (a clash goes to its `errors`); the
    /// page's keys drive the first widget.
    pub fn widget(&mut self, id: &mut String, errors: &mut Vec<String>, at: usize) {
        *id = unique(id.clone(), &mut self.seen, errors);
        self.first_widget.get_or_insert(at);
    }

    /// Place a simulation block at part `at` as [`Placing::widget`] does, keep only the first
    /// playground, and resolve the page query over it (`resolve`: the playground's start).
    pub fn playground<P, I: QueryStart>(
        &mut self,
        spec: &mut SimBlock<P>,
        at: usize,
        resolve: impl FnOnce(&SimBlock<P>) -> I,
    ) -> Option<Rc<I>> {
        self.widget(&mut spec.id, &mut spec.errors, at);
        if spec.main && self.main_at.is_some() {
            spec.errors.push(
                "main: only one playground per lesson; this block is not the main one".into(),
            );
            spec.main = false;
        }
        if !spec.main {
            return None;
        }
        self.main_at = Some(at);
        let init = resolve(spec);
        self.url_errors = init.query_errors().iter().map(|e| e.to_string()).collect();
        Some(Rc::new(init))
    }
}
