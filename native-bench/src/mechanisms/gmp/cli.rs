//! The scheduler's subcommands: `sim gmp`, `check gmp`, `bench gmp`.

use std::process::ExitCode;

use clap::ArgMatches;
use herdlab_core::cost::CostModel;
use herdlab_core::mechanisms::gmp::{GmpParams, GmpVariant, Workload};

use super::bench;
use super::{check, sim, Gmp};
use crate::check::progress_wanted;
use crate::cli::{self, json, key_args, subcommand, CliError, KeyFlag};
use crate::mechanisms::NativeMechanism;
use crate::output::print_json;

/// The scenario flags of `sim gmp` (core's keys, as they are named there).
const SIM_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("gomaxprocs"),
    KeyFlag::Key("threads"),
    KeyFlag::Key("cpus"),
    KeyFlag::Key("workload"),
    KeyFlag::Key("goroutines"),
    KeyFlag::Key("work_ns"),
    KeyFlag::Key("yields"),
    KeyFlag::Key("ring"),
    KeyFlag::Key("syscall_ns"),
    KeyFlag::Key("hog_ns"),
    KeyFlag::Key("rounds"),
    KeyFlag::Key("locked"),
    KeyFlag::Key("net_ns"),
    KeyFlag::Key("variant"),
    KeyFlag::Key("seed"),
];

/// The scenario flags of `check gmp` (over core's checker preset).
const CHECK_KEYS: &[KeyFlag] = &[
    KeyFlag::Key("variant"),
    KeyFlag::Key("gomaxprocs"),
    KeyFlag::Key("threads"),
    KeyFlag::Key("workload"),
    KeyFlag::Key("goroutines"),
    KeyFlag::Key("yields"),
    KeyFlag::Key("ring"),
    KeyFlag::Key("rounds"),
    KeyFlag::Key("locked"),
];

const SIM_ABOUT: &str = "\
Run Go's G/M/P scheduler headless on the simulated platform to the end: --goroutines Gs
(main included) doing --workload (fan-out: main spawns the rest; chain: each spawns the
next; tree: G k spawns 2k and 2k+1; spawn-many: a spawner outside every P puts them on
the global queue and starts Ms for idle Ps; yield-many: the same, each G calling
runtime.Gosched --yields times (the global queue); goyield-many: the same with goyield
(the tail of its P's ring, no lock, no wakep: tokio's yield_now); ping-pong: main spawns pairs that send each other a
token, parking and readying: an odd count; syscall: main spawns the rest and blocks in a
syscall of --syscall-ns, each even G blocks the same, then computes; hog: the last G is a
call-free loop of --hog-ns, the others wait behind it; pair: two Gs pass a token --rounds
times while the others wait; locked: main spawns the rest, the first --locked of them call
runtime.LockOSThread, then each computes and calls runtime.Gosched --yields times; a locked
G runs only on its own M: stoplockedm and startlockedm hand the P to it each time; netpoll:
main spawns the rest, each G --rounds times computes and reads from its connection, whose
peer answers after --net-ns: the G parks on the netpoller until a netpoll finds it ready;
deadlock: main waits for a token nobody sends, and checkdead ends the run with \"all
goroutines are asleep - deadlock!\", exit 1; foreign-wake: main spawns the rest, every G computes, then waits
for a token that a thread outside the runtime (no P, not an M) sends after --net-ns each, G1
first: a token if the G has not parked yet, else injectglist with no P, which starts an M
for an idle P), each computing --work-ns, on --gomaxprocs Ps
and --threads Ms
over --cpus CPUs, each P with a --ring slot local queue and runnext. syscall, hog and pair run
sysmon (retake, preemption; a blocked M and sysmon sleep off every CPU, so any --cpus will do).
Prints steps, steals, parks, spins, handoffs (Ps handed by handoffp to another M: retaken
from a syscall, or released by a locked M), global queue gets, context switches, simulated
time, retakes, preemptions, LockOSThread's locked handoffs (startlockedm), locked-M parks
(stoplockedm) and thread exits, and the first invariant broken. Defaults: gomaxprocs 4,
threads 6, cpus 4, fan-out, 40 goroutines of 20000 ns, 10 yields, ring 16, syscall 1000000
ns, hog 50000000 ns, 20 rounds, 1 locked, variant correct, seed 1.";

const CHECK_ABOUT: &str = "\
Model-check Go's G/M/P scheduler: every interleaving of the Ms, each operation one atomic
step, against conservation, ownership, queue-bounds, spinning, lost-wakeup and stuck.
Exit 0: every invariant holds and the search was complete; 1: an invariant broke (the
shortest schedule is printed step by step) or the state limit came first; 2: bad
arguments. Defaults (core's preset): gomaxprocs 2, threads 3, fan-out, 3 goroutines, ring
2, variant correct (7.4 million states: about a minute of a release build; --goroutines 2
proves in seconds). The G actions' tiny presets, proven in about a second: --workload
ping-pong --gomaxprocs 1 --threads 2 --goroutines 3; --workload spawn-many --goroutines 1;
--workload yield-many --gomaxprocs 1 --threads 2 --goroutines 2 --yields 1. The reversed
dance's counterexample: --variant reversed-dance (--preemption-bound 5 finds it in about
190,000 states). The sysmon variants start from their own preset (1 P, 2 Ms and sysmon):
--variant no-syscall-retake (workload syscall), no-async-preemption (hog), runnext-without-sysmon
(pair), no-blocking-netpoll (1 P, 2 Ms, one G that reads once: 53 steps); the runtime on the
same: --workload syscall|hog|pair|netpoll (netpoll: 1 P, 2 Ms, 2 Gs of one read, 311,944 states); a
wake from outside every P: --workload foreign-wake (1 P, 2 Ms, 2 Gs: 768,139 states) and
--variant inject-without-startm (no startIdle -> lost-wakeup, 72 steps). The checker has no clock: a
timed sleep (sysmon's usleep, a blocking syscall) is a yield point that may end at any moment;
sysmon's own clock (the sum of its sleeps, in its registers) makes these searches large: give
--preemption-bound 2 (the runtime's presets proven in 214,163 to 453,517 states; no-syscall-retake
and runnext-without-sysmon broken in seconds; no-async-preemption takes minutes of a release
build, as sysmon must first sleep 10 ms of its clock, a few hundred steps). LockOSThread:
--workload locked (2 Ps, 4 Ms, main and G2, which locks its M and calls Gosched once;
--preemption-bound 2 proves it in about 117,000 states) and --variant locked-runs-anywhere
(schedule runs a locked G on whichever M picked it -> locked-thread); with --gomaxprocs 1
--goroutines 3 --locked 2 G2 also unlocks (UnlockOSThread), proven in 200,484 states. sysmon's
network poll: --workload netpoll-hog (1 P, 2 Ms, main and a 2-slice hog that each read once;
--preemption-bound 2 proves it in 6,150,897 states). --list-variants
prints the variants, correct first.";

/// `sim gmp`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimArgs {
    /// The scenario.
    pub params: GmpParams,
    /// The step bound.
    pub max_steps: u64,
    /// Print JSON.
    pub json: bool,
    /// `--coherence-miss-ns`: the simulator's cost of a coherence miss (0, the default: off).
    pub coherence_miss_ns: u64,
    /// `--wake-ns`: how long a wake onto an idle CPU takes in all, the switch included (none:
    /// the cost model's `cross_cpu_wake_ns` and `context_switch_ns`, 6,500 ns).
    pub wake_ns: Option<u64>,
    /// `--atomic-ns`: an atomic read-modify-write's cost (none: the model's 15 ns).
    pub atomic_ns: Option<u64>,
    /// `--wake-ipi-ns`: what a wake onto an idle CPU costs the waker (0: nothing).
    pub wake_ipi_ns: u64,
    /// `--timer-slack-ns`: how late a timed sleep ends (0: at its deadline).
    pub timer_slack_ns: u64,
    /// `--gate`: start as `bench gmp`'s native runs start, every idle M asleep before the starter's
    /// first step (`GmpParams::simulate_gated`; off, the default, as on the site).
    pub gate: bool,
}

/// The step bound of `sim gmp`.
pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

/// Parse `sim gmp`'s flags.
pub fn sim_args(m: &ArgMatches) -> Result<SimArgs, CliError> {
    let mut params = GmpParams::default();
    cli::apply_keys::<Gmp>(&mut params, SIM_KEYS, m)?;
    cli::validated::<Gmp>(&params, SIM_KEYS)?;
    // not a scenario key: what a native task's poll after a yield costs (bench's --compare-sim)
    params.poll_ns = cli::value::<u64>(m, "poll-ns").unwrap_or(0) as u32;
    Ok(SimArgs {
        params,
        max_steps: cli::value(m, "max-steps").unwrap_or(DEFAULT_MAX_STEPS),
        json: cli::on(m, "json"),
        coherence_miss_ns: cli::value(m, "coherence-miss-ns").unwrap_or(0),
        wake_ns: cli::value(m, "wake-ns"),
        atomic_ns: cli::value(m, "atomic-ns"),
        wake_ipi_ns: cli::value(m, "wake-ipi-ns").unwrap_or(0),
        timer_slack_ns: cli::value(m, "timer-slack-ns").unwrap_or(0),
        gate: cli::on(m, "gate"),
    })
}

/// Parse `check gmp`'s scenario.
pub fn check_params(m: &ArgMatches) -> Result<GmpParams, CliError> {
    // the variant and workload given pick the preset; the other flags apply over it
    let mut given = GmpParams::check_preset(GmpVariant::Correct);
    cli::apply_keys::<Gmp>(&mut given, CHECK_KEYS, m)?;
    let mut params = if given.workload.sysmon_world()
        || given.workload == Workload::Locked
        || given.workload.netpoll_world()
        || given.workload.foreign()
    {
        GmpParams::action_preset(given.workload, given.variant)
    } else {
        GmpParams::variant_preset(given.variant)
    };
    cli::apply_keys::<Gmp>(&mut params, CHECK_KEYS, m)?;
    cli::validated::<Gmp>(&params, CHECK_KEYS)?;
    Ok(params)
}

/// What each variant does (`check gmp --list-variants`), correct first.
pub fn variant_lines() -> Vec<String> {
    let story = |v: GmpVariant| {
        match v {
        GmpVariant::Correct => "proc.go as it is, the parts this model has (proven)",
        GmpVariant::ReversedDance => {
            "re-check the queues, then drop spinning -> lost-wakeup (3 goroutines)"
        }
        GmpVariant::WakepNoSpinTest => {
            "wakep without the nmspinning test: a herd of Ms (counted, not caught)"
        }
        GmpVariant::NoSpinLimit => "no 2*nmspinning < gomaxprocs-npidle limit (counted)",
        GmpVariant::StealOne => "runqgrab takes one G instead of half (counted)",
        GmpVariant::NoFairness => "no 1-in-61 global queue check (counted)",
        GmpVariant::SingleQueue => "Go 1.0: one global queue under one lock (proven, compared)",
        GmpVariant::NoSyscallRetake => {
            "sysmon never retakes a P from a syscall -> syscall-retake (workload syscall)"
        }
        GmpVariant::NoAsyncPreemption => {
            "no SIGURG: a call-free loop ignores sysmon -> preemption (workload hog)"
        }
        GmpVariant::RunnextWithoutSysmon => {
            "runnext kept without sysmon: a ping-pong pair keeps the P -> starvation (workload pair)"
        }
        GmpVariant::LockedRunsAnywhere => {
            "no startlockedm: a LockOSThread G runs on any M -> locked-thread (workload locked)"
        }
        GmpVariant::InjectWithoutStartm => {
            "a wake from outside every P queues the G but starts no M -> lost-wakeup (workload foreign-wake)"
        }
        GmpVariant::NoBlockingNetpoll => {
            "the last M parks in stopm without polling -> deadlock-report (workload netpoll)"
        }
        GmpVariant::NoSysmonNetpoll => {
            "sysmon never polls the network: answered Gs wait behind a hog (counted, workload netpoll-hog)"
        }
    }
    };
    let w = GmpVariant::NAMES.iter().map(|n| n.len()).max().unwrap_or(0);
    GmpVariant::ALL
        .iter()
        .map(|&v| format!("{:<w$}  {}", v.name(), story(v)))
        .collect()
}

impl NativeMechanism for Gmp {
    fn sim_command() -> clap::Command {
        subcommand(
            "gmp",
            "Run Go's G/M/P scheduler headless on the simulated platform",
            SIM_ABOUT,
            "herdlab sim gmp --gomaxprocs 2 --threads 3 --workload chain --goroutines 20 --json",
            key_args::<Gmp>(SIM_KEYS).into_iter().chain([
                cli::ranged(
                    "coherence-miss-ns",
                    "the cost of a cache line moved between CPUs, ns (default 0: off, as on the site and in bench gmp --compare-sim; 50 is a typical server's)",
                    0,
                    10_000,
                ),
                cli::ranged(
                    "wake-ns",
                    "how long a wake onto an idle CPU takes, the switch included, ns (default 6500, the model's, as on the site; bench gmp --compare-sim measures this machine's)",
                    1,
                    1_000_000,
                ),
                cli::ranged(
                    "poll-ns",
                    "yield-many and goyield-many: the work each goroutine does when it resumes after a yield, ns (default 0, as on the site; bench gmp --compare-sim measures what a task's poll costs here)",
                    0,
                    100_000,
                ),
                cli::ranged(
                    "wake-ipi-ns",
                    "what a futex_wake costs its caller for each thread it wakes onto an idle CPU, beyond the call, ns (default 0, as on the site; bench gmp --compare-sim measures this machine's)",
                    0,
                    1_000_000,
                ),
                cli::ranged(
                    "timer-slack-ns",
                    "how late a timed sleep ends, ns: Linux's timer slack, which stretches Go's usleep(3) before it steals a runnext (default 0: at its deadline, as on the site; 50000 is Linux's default, which bench gmp --compare-sim reads)",
                    0,
                    10_000_000,
                ),
                cli::ranged(
                    "atomic-ns",
                    "an atomic read-modify-write's cost, ns (default 15, the model's, as on the site; bench gmp --compare-sim reports as atomic_fit_ns the cost at which a simulated newproc costs what a native one does here)",
                    1,
                    1_000,
                ),
                cli::switch(
                    "gate",
                    "start the run when every idle M sleeps in the kernel, as bench gmp's native runs start and its --compare-sim simulates them (default: off, as on the site)",
                ),
                cli::max_steps(),
                json(),
            ]),
        )
    }

    fn sim(m: &ArgMatches) -> Result<ExitCode, CliError> {
        let a = sim_args(m)?;
        let plain = CostModel::default();
        let cost = CostModel {
            coherence_miss_ns: a.coherence_miss_ns,
            atomic_ns: a.atomic_ns.unwrap_or(plain.atomic_ns),
            wake_ipi_ns: a.wake_ipi_ns,
            timer_slack_ns: a.timer_slack_ns,
            ..plain
        }
        .with_idle_wake_ns(a.wake_ns.unwrap_or(plain.idle_wake_ns()));
        let r = if a.gate {
            match sim::run_gmp_gated(&a.params, cost, a.max_steps) {
                Ok(r) => r,
                Err(e) => {
                    // the table's bug, not the input's: exit 1
                    eprintln!("herdlab: {e}");
                    return Ok(ExitCode::FAILURE);
                }
            }
        } else {
            sim::run_gmp_with(&a.params, cost, a.max_steps)
        };
        let code = if a.json {
            print_json(&r, false)
        } else {
            print!("{}", sim::render_gmp(&r));
            ExitCode::SUCCESS
        };
        // checkdead threw: the program died, as Go's exits 2 with its fatal error
        Ok(if r.report.fatal.is_some() {
            ExitCode::FAILURE
        } else {
            code
        })
    }

    fn bench_command() -> clap::Command {
        bench::command()
    }

    fn bench(m: &ArgMatches) -> Result<ExitCode, CliError> {
        bench::run(m)
    }

    fn check_commands() -> Vec<clap::Command> {
        vec![subcommand(
            "gmp",
            "Model-check Go's G/M/P scheduler",
            CHECK_ABOUT,
            "herdlab check gmp --variant reversed-dance",
            key_args::<Gmp>(CHECK_KEYS)
                .into_iter()
                .chain(cli::check_flags(
                    "print the variants (correct first) and what each does",
                )),
        )]
    }

    fn check(_name: &str, m: &ArgMatches) -> Result<ExitCode, CliError> {
        let params = check_params(m)?;
        cli::run_check(
            m,
            variant_lines,
            |config| check::run(&params, config, progress_wanted()),
            |out| out.exit_code(),
            |config, out| check::render(&params, config, out),
        )
    }
}
