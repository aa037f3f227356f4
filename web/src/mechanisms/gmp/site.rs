//! Go's scheduler in the registry ([`Gmp`]): its simulation blocks become gmp widgets. It has no
//! comparison widget and no check in the browser yet (`herdlab check gmp` checks it natively).

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::gmp::Gmp;

use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::gmp::blocks::{parse_gmp_sim, resolve_gmp_main};
use crate::mechanisms::gmp::form::GMP_FIELDS;
use crate::mechanisms::gmp::widget::GmpSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::sim_shell::sim_part;

/// What a comparison block of gmp says (it is shown as the simulation of its keys).
pub const NO_COMPARE: &str = "herdlab-compare: Go's scheduler has no comparison widget yet; this shows one simulation of the block's keys (use herdlab-sim)";

impl SiteMechanism for Gmp {
    const FIELDS: &'static [Field] = &GMP_FIELDS;
    const LESSON: &'static str = "go-scheduler";

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
        let mut spec = parse_gmp_sim(body, fallback_id);
        spec.errors.insert(0, NO_COMPARE.to_string());
        sim_part::<GmpSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_gmp_main(s, "")
        })
    }
}
