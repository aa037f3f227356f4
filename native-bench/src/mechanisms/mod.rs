//! The mechanisms of the native command, one folder each (`herd/`, `locks/`, `accept/`, `pool/`, `gmp/`, `mysql/`), and the
//! one registry list, [`REGISTRY`].
//!
//! Each folder holds the mechanism's native runs (core's machines on real threads), its `sim`,
//! `check` and `bench` commands, and its [`NativeMechanism`] implementation: the subcommands it
//! adds under each verb and their entry points. A new mechanism is one folder here and one line
//! in [`REGISTRY`].

use std::process::ExitCode;

use clap::ArgMatches;
use herdlab_core::mechanism::Mechanism;

use crate::cli::CliError;

pub mod accept;
pub mod gmp;
pub mod herd;
pub mod locks;
pub mod mysql;
pub mod pool;

/// The longest a whole native benchmark may take.
pub const BENCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The verbs under which mechanisms add subcommands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// `herdlab sim`: headless on the simulated platform.
    Sim,
    /// `herdlab bench`: on real threads.
    Bench,
    /// `herdlab check`: the model checker.
    Check,
}

impl Verb {
    /// Every verb.
    pub const ALL: [Verb; 3] = [Verb::Sim, Verb::Bench, Verb::Check];

    /// The command's name.
    pub fn name(self) -> &'static str {
        match self {
            Verb::Sim => "sim",
            Verb::Bench => "bench",
            Verb::Check => "check",
        }
    }
}

/// A mechanism of the native command: core's [`Mechanism`] with its subcommands and their entry
/// points. The subcommands' scenario flags come from core's key table
/// ([`crate::cli::key_args`]); the entry points parse the rest, run, print and give the exit
/// status (a refusal is a [`CliError`], exit 2).
pub trait NativeMechanism: Mechanism {
    /// `herdlab sim <NAME>`.
    fn sim_command() -> clap::Command;
    /// Run `sim`.
    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError>;
    /// `herdlab bench <NAME>`.
    fn bench_command() -> clap::Command;
    /// Run `bench`.
    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError>;
    /// The subcommands of `herdlab check` (a mechanism may check under several names: each lock,
    /// `accept-mutex` and `accept`).
    fn check_commands() -> Vec<clap::Command>;
    /// Run `check <name>`.
    fn check(name: &str, m: &ArgMatches) -> Result<ExitCode, CliError>;
}

/// One mechanism of the registry, as the generic command line sees it.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The mechanism's `NAME`.
    pub name: &'static str,
    /// Its subcommands under a verb.
    pub commands: fn(Verb) -> Vec<clap::Command>,
    /// Run one of its subcommands.
    pub run: fn(Verb, &str, &ArgMatches) -> Result<ExitCode, CliError>,
    /// The charts of its `bench` rows.
    pub charts: fn() -> Vec<herdlab_core::chart::ChartSpec>,
}

impl Entry {
    /// The entry of `M`.
    pub const fn of<M: NativeMechanism>() -> Entry {
        Entry {
            name: M::NAME,
            commands: commands_of::<M>,
            run: run_of::<M>,
            // core's list (`Mechanism::bench_charts`): the site's results page draws the same
            charts: <M as herdlab_core::mechanism::Mechanism>::bench_charts,
        }
    }
}

fn commands_of<M: NativeMechanism>(verb: Verb) -> Vec<clap::Command> {
    match verb {
        Verb::Sim => vec![M::sim_command()],
        Verb::Bench => vec![M::bench_command()],
        Verb::Check => M::check_commands(),
    }
}

fn run_of<M: NativeMechanism>(
    verb: Verb,
    name: &str,
    m: &ArgMatches,
) -> Result<ExitCode, CliError> {
    match verb {
        Verb::Sim => M::sim(m),
        Verb::Bench => M::bench(m),
        Verb::Check => M::check(name, m),
    }
}

/// Every mechanism, in the order `sim` and `bench` list them.
pub const REGISTRY: &[Entry] = &[
    Entry::of::<herd::Herd>(),
    Entry::of::<locks::Locks>(),
    Entry::of::<accept::Accept>(),
    Entry::of::<pool::Pool>(),
    Entry::of::<gmp::Gmp>(),
    Entry::of::<mysql::Mysql>(),
];
