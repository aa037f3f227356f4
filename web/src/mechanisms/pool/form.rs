//! The pool playground's parameter form (controls=full): its fields, read, written and checked
//! with core's `Pool` (`Mechanism::get`, `set`, `validate`).

use herdlab_core::mechanisms::pool::{PoolVariant, Wake};
use herdlab_core::sim::arrivals::ArrivalPattern;

use crate::live::form::{Field, FieldKind, Hint};

const fn number(key: &'static str, label: &'static str, range: &'static str) -> Field {
    Field {
        key,
        label,
        kind: FieldKind::Number(range),
        hint: None,
    }
}

const fn choice(
    key: &'static str,
    label: &'static str,
    names: &'static [&'static str],
    hint: Option<Hint>,
) -> Field {
    Field {
        key,
        label,
        kind: FieldKind::Choice(names),
        hint,
    }
}

/// The pool form's fields, in display order (`input-<key>` / `select-<key>`; a test holds their
/// keys to be core's `Pool::KEYS`).
pub const POOL_FIELDS: [Field; 16] = [
    choice(
        "offload",
        "blocking reads",
        &["on", "off"],
        Some(Hint(offload_story)),
    ),
    choice("wake", "wake", &Wake::NAMES, Some(Hint(wake_story))),
    choice(
        "variant",
        "code",
        &PoolVariant::NAMES,
        Some(Hint(variant_story)),
    ),
    number("threads", "pool threads", "1-64"),
    number("max_queue", "max_queue", "0-65536"),
    number("task_us", "blocking read (µs)", "1-1000000"),
    number("blocking_pct", "requests that block (%)", "0-100"),
    choice("arrival", "arrival", &ArrivalPattern::NAMES, None),
    number("rate", "rate (per s)", "1-10000000"),
    number("burst", "burst", "1-1000"),
    number("requests", "requests", "1-1000000"),
    number("slots", "task objects", "1-100"),
    number("cpus", "CPUs", "1-64"),
    number("spin", "ngx_spinlock spin", "1-2048"),
    number("spurious", "spurious wakeups", "0-16"),
    number("seed", "seed", "0-18446744073709551615"),
];

/// One line on `offload`.
pub fn offload_story(v: &str) -> &'static str {
    match v {
        "on" => "aio threads: the event loop posts each blocking read to the pool and goes on",
        "off" => "no pool: the event loop reads itself, and every other request waits behind it",
        _ => "",
    }
}

/// One line on `wake`.
pub fn wake_story(v: &str) -> &'static str {
    match v {
        "signal" => "nginx: pthread_cond_signal, one idle thread per task",
        "broadcast" => "pthread_cond_broadcast: every idle thread wakes, one finds the task",
        _ => "",
    }
}

/// One line on each variant.
pub fn variant_story(v: &str) -> &'static str {
    match v {
        "correct" => "nginx's code",
        "if-not-while" => "checks the queue with if, not while: a woken thread may dequeue NULL",
        "signal-outside-mutex" => {
            "signals after unlocking: the signal can fall between check and wait"
        }
        "no-signal" => "never signals: tasks wait while every thread sleeps",
        "forget-last" => "dequeuing the last task leaves last pointing into it",
        "waiting-after-dequeue" => {
            "waiting-- after the dequeue (before afe1fcffa): idle threads still count"
        }
        "one-per-notify" => "the completion handler takes one task per eventfd wake",
        "no-active-check" => "posts a task that is already queued: the queue gets a cycle",
        "shutdown-flag" => "a shutdown flag and one signal instead of one exit task per thread",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanism::{KeyKind, Mechanism};
    use herdlab_core::mechanisms::pool::Pool;

    #[test]
    fn the_fields_are_cores_keys_with_cores_ranges() {
        let mut keys: Vec<&str> = POOL_FIELDS.iter().map(|f| f.key).collect();
        keys.sort();
        let mut core: Vec<&str> = Pool::KEYS.iter().map(|k| k.name).collect();
        core.sort();
        assert_eq!(keys, core);
        for f in &POOL_FIELDS {
            let k = Pool::KEYS.iter().find(|k| k.name == f.key).unwrap();
            match (f.kind, k.kind) {
                (FieldKind::Number(r), KeyKind::Range { .. }) => assert_eq!(r, k.allowed()),
                (FieldKind::Choice(names), _) => {
                    for n in names {
                        let mut p = Default::default();
                        assert!(Pool::set(&mut p, f.key, n).is_ok(), "{} {n}", f.key);
                    }
                    if let Some(h) = f.hint {
                        assert!(names.iter().all(|n| !h.text(n).is_empty()), "{}", f.key);
                    }
                }
                other => panic!("{}: {other:?}", f.key),
            }
        }
    }
}
