//! The accept strategies in the registry ([`Accept`]): their blocks become their widgets; the
//! browser does not check them (a check block naming them is a lock check that says so).

use herdlab_core::mechanisms::accept::{Accept, AcceptParams};

use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::accept::blocks::{
    parse_accept_compare, parse_accept_sim, resolve_accept_main,
};
use crate::mechanisms::accept::compare::AcceptCompare;
use crate::mechanisms::accept::form::ACCEPT_FIELDS;
use crate::mechanisms::accept::widget::AcceptSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::compare_shell::compare_part;
use crate::ui::shell::sim_shell::sim_part;
use herdlab_core::mechanism::Mechanism;

impl SiteMechanism for Accept {
    const FIELDS: &'static [Field] = &ACCEPT_FIELDS;
    const LESSON: &'static str = "epoll-herd";
    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_accept_sim(body, fallback_id);
        sim_part::<AcceptSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_accept_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        let mut spec = parse_accept_compare(body, fallback_id);
        place.widget(&mut spec.id, &mut spec.errors, at);
        compare_part::<AcceptCompare>(
            <Self as Mechanism>::NAME,
            spec.id.clone(),
            spec.errors.clone(),
            spec,
        )
    }

    fn check_caption(p: &AcceptParams) -> String {
        format!("{} with {} workers", p.strategy.name(), p.workers)
    }
}
