//! The G-code seam (`GCode`): the simulator never gives one, and a provider that answers as the
//! workload does leaves every step the same (trace hash and report), on the workloads whose Gs
//! resume at their saved `pc` (with a provider every G does); a provider with other answers is
//! what the table runs.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::Arc;

use herdlab_core::mechanisms::gmp::params::GmpSim;
use herdlab_core::mechanisms::gmp::{
    GAct, GCode, GCodeRef, GmpConfig, GmpParams, GmpReport, Workload,
};

/// Answers as the workload does, counting the questions.
#[derive(Debug, Default)]
struct Forward(AtomicU64);

impl GCode for Forward {
    fn action(&self, c: &GmpConfig, g: u32, pc: u32) -> GAct {
        self.0.fetch_add(1, SeqCst);
        c.workload.action(c, g, pc)
    }
}

/// Every G returns at once.
#[derive(Debug)]
struct ExitAtOnce;

impl GCode for ExitAtOnce {
    fn action(&self, _c: &GmpConfig, _g: u32, _pc: u32) -> GAct {
        GAct::Exit
    }
}

fn run(mut sim: GmpSim) -> (u64, GmpReport) {
    let mut n = 0;
    while n < 5_000_000 {
        if sim.step().is_none() {
            break;
        }
        n += 1;
    }
    (sim.trace_hash(), GmpReport::of(&sim, n, None))
}

fn with(p: &GmpParams, code: Arc<dyn GCode>) -> GmpSim {
    p.simulate().map_machines(|mut a| {
        a.cx.code = GCodeRef(Some(code.clone()));
        a
    })
}

#[test]
fn a_forwarding_provider_changes_no_step() {
    for workload in [
        Workload::YieldMany,
        Workload::PingPong,
        Workload::Syscall,
        Workload::Pair,
    ] {
        let p = GmpParams {
            gomaxprocs: 2,
            threads: 3,
            cpus: 2,
            workload,
            goroutines: 9,
            yields: 3,
            ..GmpParams::default()
        };
        let plain = run(p.simulate());
        let f = Arc::new(Forward::default());
        let forwarded = run(with(&p, f.clone()));
        assert_eq!(plain, forwarded, "{workload:?}");
        assert!(f.0.load(SeqCst) > 0, "{workload:?}: the provider was asked");
        assert!(plain.1.finished > 0);
    }
}

#[test]
fn the_table_runs_the_providers_code() {
    // fan-out: main would spawn 7 Gs; with every G returning at once, main is the only one
    let p = GmpParams {
        gomaxprocs: 2,
        threads: 3,
        cpus: 2,
        workload: Workload::FanOut,
        goroutines: 8,
        ..GmpParams::default()
    };
    let (_, plain) = run(p.simulate());
    assert_eq!((plain.finished, plain.context_switches), (8, 8));
    let (_, r) = run(with(&p, Arc::new(ExitAtOnce)));
    assert_eq!((r.finished, r.context_switches), (1, 1));
}
