//! Go's scheduler in the registry ([`Gmp`]): its simulation blocks become gmp widgets, its
//! comparison blocks two of them side by side (`compare.rs`). It has no check in the browser
//! (`herdlab check gmp` checks it natively: the smallest scenario that breaks has 2 million
//! states).

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::Gmp;

use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::gmp::blocks::{parse_gmp_compare, parse_gmp_sim, resolve_gmp_main};
use crate::mechanisms::gmp::form::GMP_FIELDS;
use crate::mechanisms::gmp::widget::GmpSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::side_by_side::two_settings_part;
use crate::ui::shell::sim_shell::sim_part;

impl SiteMechanism for Gmp {
    const FIELDS: &'static [Field] = &GMP_FIELDS;
    const LESSON: &'static str = "go-scheduler";
    const FINISHED: &'static str = "every goroutine ran to its end";

    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_gmp_sim(body, fallback_id);
        sim_part::<GmpSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_gmp_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        two_settings_part::<Self>(parse_gmp_compare(body, fallback_id), place, at)
    }
}
