//! The messages between the page and the checker's Web Worker (`src/bin/check_worker.rs`), sent as
//! JSON strings. The worker says [`CheckReply::Ready`] once it runs; the page then sends one
//! [`CheckRequest`]; the worker answers with [`CheckReply::Progress`] every 65,536 states and one
//! [`CheckReply::Done`] (or [`CheckReply::Error`]). To cancel, the page terminates the worker.
//!
//! The request names its mechanism: `locks` (core's `explore` over the checking platform with the
//! lock invariants) or `herd` (core's `herd::invariants::check`, the simulator as the model; at most
//! [`BROWSER_MAX_HERD_WORKERS`] workers and [`BROWSER_MAX_HERD_CONNECTIONS`] connections here),
//! `pool` or `mysql` (core's `mysql::invariants::check`; at most [`BROWSER_MAX_MYSQL_CONNECTIONS`]
//! connections and [`BROWSER_MAX_MYSQL_QUERIES`] queries).

use herdlab_core::check::CheckReport;
use serde::{Deserialize, Serialize};

/// The mechanisms the checker's worker checks (`src/bin/check_worker.rs` has one arm each), in
/// the order the messages list them. The main app's registry lacks the lazy-only ones (mysql), so
/// this list, not the registry, says which mechanisms a check block and the `#/check` page take;
/// the registry's tests hold it equal to the mechanisms whose site folder makes check blocks.
pub const CHECKED: &[&str] = &["locks", "herd", "pool", "mysql"];

/// The script that starts the worker (trunk's loader shim for the `check_worker` binary).
pub const WORKER_URL: &str = "./check_worker_loader.js";

/// The most distinct states a search in the browser visits.
pub const BROWSER_MAX_STATES: u64 = 5_000_000;

/// The most herd workers a search in the browser takes (`herdlab check herd` natively takes more).
pub const BROWSER_MAX_HERD_WORKERS: u32 = 4;

/// The most herd connections a search in the browser takes.
pub const BROWSER_MAX_HERD_CONNECTIONS: u32 = 4;

/// The most pool threads a search in the browser takes (`herdlab check pool` natively takes more).
pub const BROWSER_MAX_POOL_THREADS: u32 = 2;

/// The most pool requests a search in the browser takes.
pub const BROWSER_MAX_POOL_REQUESTS: u32 = 3;

/// The most mysql client connections a search in the browser takes (`herdlab check mysql`
/// natively takes more). Mysql is lazy-only: the main app does not read it.
#[allow(dead_code)]
pub const BROWSER_MAX_MYSQL_CONNECTIONS: u32 = 2;

/// The most mysql queries a search in the browser takes.
#[allow(dead_code)]
pub const BROWSER_MAX_MYSQL_QUERIES: u32 = 4;

/// The mechanism of a request that names none (requests before herd checks existed).
fn locks() -> String {
    "locks".to_string()
}

/// What to check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRequest {
    /// What to check: `locks` or `herd` (the query's `mechanism` must agree).
    #[serde(default = "locks")]
    pub mechanism: String,
    /// The scenario, as `Scenario::to_query()`.
    pub query: String,
    /// The state limit.
    pub max_states: u64,
}

/// What the worker says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CheckReply {
    /// The worker runs and waits for its request.
    Ready,
    /// States visited so far, and milliseconds since the search began.
    Progress {
        /// Distinct states so far.
        states: u64,
        /// Milliseconds of search so far.
        ms: f64,
    },
    /// The search ended.
    Done {
        /// core's report.
        report: CheckReport,
        /// Milliseconds the search took (the shortest counterexample's search included).
        ms: f64,
    },
    /// The request could not be run.
    Error {
        /// Why.
        message: String,
    },
}

impl CheckReply {
    /// The reply as the JSON string the worker posts.
    #[allow(dead_code)] // the worker's half
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(r#"{{"kind":"error","message":"cannot encode the reply: {e}"}}"#)
        })
    }

    /// A posted JSON string read back (the page reads it with the browser's JSON instead, in
    /// `pages::check_widget`, to keep serde_json out of its bundle).
    #[allow(dead_code)] // the tests' half
    pub fn from_json(s: &str) -> Result<Self, String> {
        serde_json::from_str(s)
            .map_err(|e| format!("a message from the checker's worker could not be read: {e}"))
    }
}

impl CheckRequest {
    /// The request as JSON (the page builds it with the browser's JSON; see
    /// `pages::check_widget`).
    #[allow(dead_code)] // the tests' half
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A posted JSON string read back.
    #[allow(dead_code)] // the worker's half
    pub fn from_json(s: &str) -> Result<Self, String> {
        serde_json::from_str(s).map_err(|e| format!("the request could not be read: {e}"))
    }
}
