//! The accept playground's parameter form (controls=full): its fields, read and written with core's
//! `set_accept_param` and checked with `validate_accept`.

use herdlab_core::sim::arrivals::ArrivalPattern;

use crate::live::form::{Field, FieldKind, Hint};

/// `Strategy::NAMES` (core), for the strategy selector.
pub const STRATEGY_NAMES: [&str; 6] = herdlab_core::mechanisms::accept::Strategy::NAMES;
/// `MutexVariant::name` of every variant, in `MutexVariant::ALL` order (a test holds them equal).
pub const MUTEX_VARIANT_NAMES: [&str; 4] =
    ["correct", "unlock-before-accept", "no-disable", "no-timer"];

const fn number(key: &'static str, label: &'static str, range: &'static str) -> Field {
    Field {
        key,
        label,
        kind: FieldKind::Number(range),
        hint: None,
    }
}

/// The accept form's fields, in display order (`input-<key>` / `select-<key>`).
pub const ACCEPT_FIELDS: [Field; 17] = [
    Field {
        key: "strategy",
        label: "strategy",
        kind: FieldKind::Choice(&STRATEGY_NAMES),
        hint: Some(Hint(strategy_story)),
    },
    Field {
        key: "variant",
        label: "accept mutex code (accept-mutex)",
        kind: FieldKind::Choice(&MUTEX_VARIANT_NAMES),
        hint: Some(Hint(mutex_story)),
    },
    number("workers", "workers", "1-64"),
    number("cpus", "CPUs", "1-16"),
    number("connections", "connections", "1-1000000"),
    Field {
        key: "arrival",
        label: "arrival",
        kind: FieldKind::Choice(&ArrivalPattern::NAMES),
        hint: None,
    },
    number("rate", "rate (per s)", "1-10000000"),
    number("burst", "burst", "1-1024"),
    number("requests", "requests per connection", "1-1000"),
    number("service", "service (ns)", "0-100000000"),
    number("think", "client think time (ns)", "0-1000000000"),
    Field {
        key: "multi_accept",
        label: "multi_accept",
        kind: FieldKind::Choice(&["false", "true"]),
        hint: None,
    },
    number(
        "reorder_every",
        "reorder every n accepts (exclusive; 0 never)",
        "0-65536",
    ),
    number("delay", "accept_mutex_delay (ms)", "1-60000"),
    number("worker_connections", "worker_connections", "1-65536"),
    Field {
        key: "local_clients",
        label: "clients on the server's CPUs",
        kind: FieldKind::Choice(&["false", "true"]),
        hint: None,
    },
    number("seed", "seed", "0-18446744073709551615"),
];

/// One line on each strategy, for the selector's hint.
pub fn strategy_story(name: &str) -> &'static str {
    match name {
        "herd" => "an epoll per worker, the listener in each: every worker is woken for every connection",
        "shared-epoll" => "one epoll made before fork, shared: its newest sleeper is woken (LIFO)",
        "exclusive" => "EPOLLEXCLUSIVE: the listener's walk wakes the first registered epoll that has a sleeper",
        "accept-mutex" => "nginx's accept mutex: only the worker that won the trylock has the listener registered",
        "reuseport" => "SO_REUSEPORT: a listening socket per worker, each connection placed by a hash",
        "blocking" => "threads blocked in accept(): an exclusive FIFO wait queue, no epoll",
        _ => "",
    }
}

/// The story of the accept mutex's code `value` (core's `MutexVariant::story`; empty for an
/// unknown one).
pub fn mutex_story(value: &str) -> &'static str {
    herdlab_core::mechanisms::accept::MutexVariant::from_name(value)
        .map(|v| v.story())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::form::FormState;
    use herdlab_core::mechanism::Mechanism;
    use herdlab_core::mechanisms::accept::Accept;
    use herdlab_core::mechanisms::accept::AcceptParams;
    use herdlab_core::mechanisms::accept::{MutexVariant, Strategy};
    use herdlab_core::scenario::ACCEPT_KEYS;

    #[test]
    fn names_match_core() {
        assert_eq!(
            MUTEX_VARIANT_NAMES,
            MutexVariant::ALL.map(MutexVariant::name)
        );
        let mut keys: Vec<&str> = ACCEPT_FIELDS.iter().map(|f| f.key).collect();
        let mut want = ACCEPT_KEYS.to_vec();
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want);
        for s in Strategy::ALL {
            assert!(!strategy_story(s.name()).is_empty(), "{s:?}");
        }
        let p = AcceptParams::default();
        for f in ACCEPT_FIELDS {
            let mut q = p;
            assert_eq!(
                Accept::set(&mut q, f.key, &Accept::get(&p, f.key).unwrap_or_default()),
                Ok(()),
                "{}",
                f.key
            );
            assert_eq!(q, p, "{}", f.key);
        }
    }

    #[test]
    fn accept_form_refuses_and_keeps_the_last_good_value() {
        let good = AcceptParams::default();
        let mut f = FormState::of::<Accept>(&good);
        assert_eq!(f.edit::<Accept>("workers", "65", &good), None);
        assert!(f
            .error_of::<Accept>("workers")
            .unwrap_or_default()
            .contains("1-64"));
        assert_eq!(f.edit::<Accept>("strategy", "nope", &good), None);
        assert!(f
            .error_of::<Accept>("strategy")
            .unwrap_or_default()
            .contains("accept-mutex"));
        let p = f
            .edit::<Accept>("strategy", "accept-mutex", &good)
            .expect("valid");
        assert_eq!(p.strategy, Strategy::AcceptMutex);
        let p2 = f.edit::<Accept>("variant", "no-timer", &p).expect("valid");
        assert_eq!(p2.variant, MutexVariant::NoTimer);
        assert_eq!(p2.workers, good.workers, "the refused value was not used");
        assert_eq!(
            Hint(mutex_story).text("no-disable"),
            MutexVariant::NoDisable.story()
        );
        assert!(Hint(strategy_story)
            .text("reuseport")
            .contains("SO_REUSEPORT"));
    }
}
