//! Scan `netpoll` scenarios for `netpollBreak`s: `cargo run -p herdlab-core --example gmp_np_scan`.

use herdlab_core::mechanisms::gmp::{GmpParams, Workload};

fn main() {
    for (procs, threads, cpus) in [
        (1, 2, 1),
        (1, 3, 2),
        (2, 3, 2),
        (2, 4, 4),
        (4, 6, 4),
        (4, 8, 8),
    ] {
        for gs in [2, 3, 5, 20] {
            for net in [1_000, 20_000, 100_000] {
                for seed in 0..3 {
                    let p = GmpParams {
                        gomaxprocs: procs,
                        threads,
                        cpus,
                        workload: Workload::Netpoll,
                        goroutines: gs,
                        rounds: 3,
                        net_ns: net,
                        work_ns: 5_000,
                        seed,
                        ..GmpParams::default()
                    };
                    let (_, r) = p.run(10_000_000);
                    if r.netpoll_breaks > 0 || r.violation.is_some() || r.finished != gs {
                        println!("{procs} {threads} {cpus} gs={gs} net={net} seed={seed}: breaks {} fin {} {:?}", r.netpoll_breaks, r.finished, r.violation);
                    }
                }
            }
        }
    }
}
