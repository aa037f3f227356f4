//! The thread pool in the registry ([`Pool`]): its blocks become its widgets. The browser does
//! not check it yet (the check worker knows the locks and the herd only; a check block naming the
//! pool is a lock check that says so); `herdlab check pool` checks it natively.

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::pool::{Pool, PoolParams};

use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::pool::blocks::{parse_pool_compare, parse_pool_sim, resolve_pool_main};
use crate::mechanisms::pool::compare::PoolCompare;
use crate::mechanisms::pool::form::POOL_FIELDS;
use crate::mechanisms::pool::widget::PoolSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::compare_shell::compare_part;
use crate::ui::shell::sim_shell::sim_part;

impl SiteMechanism for Pool {
    const FIELDS: &'static [Field] = &POOL_FIELDS;
    const LESSON: &'static str = "nginx-thread-pool";

    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_pool_sim(body, fallback_id);
        sim_part::<PoolSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_pool_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        let mut spec = parse_pool_compare(body, fallback_id);
        place.widget(&mut spec.id, &mut spec.errors, at);
        compare_part::<PoolCompare>(
            <Self as Mechanism>::NAME,
            spec.id.clone(),
            spec.errors.clone(),
            spec,
        )
    }

    fn check_caption(p: &PoolParams) -> String {
        format!(
            "{} ({}): every interleaving of the event loop, {} pool thread{} and {} request{}",
            Pool::TITLE,
            p.variant.name(),
            p.threads,
            if p.threads == 1 { "" } else { "s" },
            p.requests,
            if p.requests == 1 { "" } else { "s" }
        )
    }
}
