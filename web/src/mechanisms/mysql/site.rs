//! MySQL's connection handling in the registry ([`Mysql`]): its simulation blocks become mysql
//! widgets. It has no comparison widget and no check in the browser yet (`herdlab check mysql`
//! checks it natively).

use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::Mysql;

use crate::lesson::parts::{Placing, Widget};
use crate::live::form::Field;
use crate::mechanisms::mysql::blocks::{parse_mysql_sim, resolve_mysql_main};
use crate::mechanisms::mysql::form::MYSQL_FIELDS;
use crate::mechanisms::mysql::widget::MysqlSim;
use crate::mechanisms::SiteMechanism;
use crate::ui::shell::sim_shell::sim_part;

/// What a comparison block of mysql says (it is shown as the simulation of its keys).
pub const NO_COMPARE: &str = "herdlab-compare: MySQL's connection handling has no comparison widget yet; this shows one simulation of the block's keys (use herdlab-sim)";

impl SiteMechanism for Mysql {
    const FIELDS: &'static [Field] = &MYSQL_FIELDS;
    const LESSON: &'static str = "mysql-thread-per-connection";

    fn sim_widget(
        body: &str,
        fallback_id: &str,
        query: &str,
        place: &mut Placing,
        at: usize,
    ) -> Widget {
        let spec = parse_mysql_sim(body, fallback_id);
        sim_part::<MysqlSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_mysql_main(s, query)
        })
    }

    fn compare_widget(body: &str, fallback_id: &str, place: &mut Placing, at: usize) -> Widget {
        let mut spec = parse_mysql_sim(body, fallback_id);
        spec.errors.insert(0, NO_COMPARE.to_string());
        sim_part::<MysqlSim>(<Self as Mechanism>::NAME, spec, place, at, |s| {
            resolve_mysql_main(s, "")
        })
    }
}
