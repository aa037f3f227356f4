//! MySQL's model: the generic [`SimModel`] over core's MySQL simulation.

use herdlab_core::mechanisms::mysql::Mysql;

use crate::live::sim_model::SimModel;

/// The MySQL simulation model.
pub type MysqlSimModel = SimModel<Mysql>;
