//! The gmp playground's parameter form (controls=full): its fields, read, written and checked
//! with core's `Gmp` (`Mechanism::get`, `set`, `validate`).

use herdlab_core::mechanisms::gmp::{GmpVariant, Workload};

use crate::live::form::{Field, FieldKind, Hint};

const fn number(key: &'static str, label: &'static str, range: &'static str) -> Field {
    Field {
        key,
        label,
        kind: FieldKind::Number(range),
        hint: None,
    }
}

/// The gmp form's fields, in display order (`input-<key>` / `select-<key>`; a test holds their
/// keys to be core's `Gmp::KEYS`).
pub const GMP_FIELDS: [Field; 15] = [
    Field {
        key: "workload",
        label: "workload",
        kind: FieldKind::Choice(&Workload::NAMES),
        hint: Some(Hint(workload_story)),
    },
    Field {
        key: "variant",
        label: "code",
        kind: FieldKind::Choice(&GmpVariant::NAMES),
        hint: Some(Hint(variant_story)),
    },
    number("gomaxprocs", "GOMAXPROCS (Ps)", "1-16"),
    number("threads", "Ms (OS threads)", "2-32"),
    number("cpus", "CPUs", "1-64"),
    number("goroutines", "goroutines", "1-15000"),
    number("work_ns", "work per goroutine (ns)", "1-100000000"),
    number("yields", "yields (yield-many, goyield-many)", "0-10000"),
    number("ring", "local ring slots", "2-256"),
    number("syscall_ns", "syscall time (ns, syscall)", "1-1000000000"),
    number("hog_ns", "hog's loop (ns, hog)", "1-1000000000"),
    number("rounds", "round trips (pair), reads (netpoll)", "1-10000"),
    number("locked", "LockOSThread goroutines (locked)", "0-16"),
    number(
        "net_ns",
        "network delay (ns, netpoll; foreign-wake's waker)",
        "1-1000000000",
    ),
    number("seed", "seed", "0-18446744073709551615"),
];

/// One line on each workload.
pub fn workload_story(v: &str) -> &'static str {
    match v {
        "fan-out" => "main spawns every goroutine: they go to its P's runnext and ring",
        "chain" => "each goroutine spawns the next",
        "tree" => "each goroutine spawns two",
        "spawn-many" => "a thread outside every P spawns them: each goes to the global queue",
        "yield-many" => "each goroutine calls runtime.Gosched: back to the global queue",
        "goyield-many" => {
            "each goroutine calls goyield: to the tail of its own P's ring, no lock, no wakep"
        }
        "ping-pong" => "pairs hand a token back and forth: gopark and goready",
        "syscall" => "goroutines block in system calls: sysmon hands their Ps to other Ms",
        "hog" => "a call-free loop holds its P: sysmon preempts it after 10 ms",
        "pair" => "a ping-pong pair shares one time slice through runnext",
        "locked" => "goroutines locked to their thread: each return needs its own M",
        "netpoll" => "goroutines wait on the network: they park on the poller until a netpoll finds them ready",
        "netpoll-hog" => {
            "a hog holds the only P while an answer arrives: sysmon's poll finds it after 10 ms"
        }
        "deadlock" => "main waits for a token nobody sends: checkdead ends the program",
        "foreign-wake" => {
            "a thread outside every P wakes parked goroutines: injectglist starts an M for them"
        }
        _ => "",
    }
}

/// One line on each variant.
pub fn variant_story(v: &str) -> &'static str {
    match v {
        "correct" => "Go's runtime (proc.go)",
        "reversed-dance" => "re-checks the queues, then drops spinning: a G can be left behind",
        "wakep-no-spin-test" => "wakep wakes an M even when one spins: a herd of Ms",
        "no-spin-limit" => "every idle M spins",
        "steal-one" => "steals one G instead of half",
        "no-fairness" => "no 1-in-61 check of the global queue",
        "single-queue" => "Go 1.0: one global queue under one lock",
        "no-syscall-retake" => "sysmon never takes a P from a blocked M",
        "no-async-preemption" => {
            "no SIGURG (Go before 1.14): a loop without calls is never stopped"
        }
        "runnext-without-sysmon" => "runnext kept with no sysmon to end the shared slice",
        "locked-runs-anywhere" => "a locked goroutine runs on whichever M found it",
        "no-blocking-netpoll" => {
            "the last idle M parks instead of blocking in netpoll: a false deadlock"
        }
        "no-sysmon-netpoll" => {
            "sysmon never polls the network: a ready goroutine waits for the next findRunnable"
        }
        "inject-without-startm" => {
            "a wake from outside every P queues the goroutine but starts no M: it waits"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanism::{KeyKind, Mechanism};
    use herdlab_core::mechanisms::gmp::Gmp;

    #[test]
    fn the_fields_are_cores_keys_with_cores_ranges() {
        let mut keys: Vec<&str> = GMP_FIELDS.iter().map(|f| f.key).collect();
        keys.sort();
        let mut core: Vec<&str> = Gmp::KEYS.iter().map(|k| k.name).collect();
        core.sort();
        assert_eq!(keys, core);
        for f in &GMP_FIELDS {
            let k = Gmp::KEYS.iter().find(|k| k.name == f.key).unwrap();
            match (f.kind, k.kind) {
                (FieldKind::Number(r), KeyKind::Range { .. }) => assert_eq!(r, k.allowed()),
                (FieldKind::Choice(names), _) => {
                    for n in names {
                        let mut p = Default::default();
                        assert!(Gmp::set(&mut p, f.key, n).is_ok(), "{} {n}", f.key);
                    }
                    let h = f.hint.expect("a hint");
                    assert!(names.iter().all(|n| !h.text(n).is_empty()), "{}", f.key);
                }
                other => panic!("{}: {other:?}", f.key),
            }
        }
    }
}
