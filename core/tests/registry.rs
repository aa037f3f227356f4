//! The registry and every mechanism's key table, checked generically: each test walks
//! `MECHANISMS` and reaches the mechanism through `Scenario::visit`, so a new mechanism is covered
//! by adding its registry line.
use herdlab_core::mechanism::{Key, KeyKind, Mechanism};
use herdlab_core::scenario::{query_pairs, Registered, Scenario, Visit, MECHANISMS};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn each(mut v: impl FnMut(&Scenario)) {
    for name in MECHANISMS {
        let s = Scenario::default_of(name).unwrap_or_else(|| panic!("no default for {name}"));
        assert_eq!(s.mechanism(), name);
        v(&s);
    }
}

/// Out-of-table values for a key: just past each end of a range, a word, empty.
fn bad_values(k: &Key) -> Vec<String> {
    let mut v = vec!["bogus".to_string(), String::new()];
    match k.kind {
        KeyKind::Range { lo, hi, .. } => {
            if lo > 0 {
                v.push((lo - 1).to_string());
            }
            if hi < u64::MAX {
                v.push((hi + 1).to_string());
            } else {
                v.push("18446744073709551616".into());
            }
            v.push("-1".into());
            v.push(" 1".into());
        }
        KeyKind::OneOf(names) => {
            v.push(names[0].to_uppercase());
            v.push(format!("{} ", names[0]));
        }
        KeyKind::Switch => v.extend(["true".into(), "false".into(), "1".into()]),
        KeyKind::Bool => v.extend(["yes".into(), "1".into(), "On".into()]),
    }
    v
}

struct KeysRoundTrip;

impl Visit for KeysRoundTrip {
    type Output = ();
    fn visit<M: Registered>(self, _: &M::Params) {
        let d = M::Params::default();
        assert!(M::validate(&d).is_empty(), "{}: defaults invalid", M::NAME);
        let mut seen = Vec::new();
        for k in M::KEYS {
            assert!(!seen.contains(&k.name), "{}: {} twice", M::NAME, k.name);
            seen.push(k.name);
            assert!(!k.help.is_empty(), "{}: {} has no help", M::NAME, k.name);
            assert_eq!(M::key(k.name), Some(k));
            assert!(
                M::get(&d, k.name).is_some(),
                "{}: no get for {}",
                M::NAME,
                k.name
            );
            // every allowed value (each name, both ends of each range) reads back as written
            for v in k.examples() {
                let mut p = d.clone();
                M::set(&mut p, k.name, &v)
                    .unwrap_or_else(|e| panic!("{}: {}={v} refused: {e}", M::NAME, k.name));
                assert_eq!(
                    M::get(&p, k.name),
                    Some(v.clone()),
                    "{} {}",
                    M::NAME,
                    k.name
                );
                // ... and writing the value back gives the same parameters
                let mut q = d.clone();
                M::set(&mut q, k.name, &M::get(&p, k.name).unwrap()).unwrap();
                assert_eq!(p, q);
            }
            // the default's own text is accepted and changes nothing
            let mut p = d.clone();
            M::set(&mut p, k.name, &M::get(&d, k.name).unwrap()).unwrap();
            assert_eq!(p, d, "{} {}", M::NAME, k.name);
            // a refused value names the key and every allowed value, and changes nothing
            for v in bad_values(k) {
                let mut p = d.clone();
                let e = M::set(&mut p, k.name, &v).expect_err(&format!(
                    "{}: {}={v:?} accepted",
                    M::NAME,
                    k.name
                ));
                assert_eq!(e.field, k.name);
                assert!(
                    e.message.contains(&k.allowed()),
                    "{}: {:?} does not list {}",
                    M::NAME,
                    e.message,
                    k.allowed()
                );
                assert!(e.to_string().starts_with(&format!("{}: ", k.name)));
                assert_eq!(
                    p,
                    d,
                    "{}: a refused {}={v:?} changed the parameters",
                    M::NAME,
                    k.name
                );
            }
        }
        // a key the table lacks: refused with the list of known keys, never read
        let mut p = d.clone();
        let e = M::set(&mut p, "no-such-key", "1").unwrap_err();
        assert_eq!(e.field, "no-such-key");
        let names: Vec<&str> = M::KEYS.iter().map(|k| k.name).collect();
        assert_eq!(
            e.message,
            format!("unknown parameter; allowed: {}", names.join(", "))
        );
        assert_eq!(M::get(&d, "no-such-key"), None);
        // the query lists every key, in table order, and parses back to the same parameters
        let q = M::to_query(&d);
        let keys: Vec<String> = query_pairs(&q).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, names);
        let (back, errs) = M::parse_pairs(
            query_pairs(&q)
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect::<Vec<_>>(),
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(back, d);
    }
}

#[test]
fn every_key_of_every_mechanism_round_trips_and_refuses_with_the_allowed_values() {
    each(|s| s.visit(KeysRoundTrip));
}

/// (mechanism, field) of the combination rules the upper ends of the ranges may break together.
const COMBINED_LIMITS: &[(&str, &str)] = &[("gmp", "goroutines")];

struct RangeEnds;

impl Visit for RangeEnds {
    type Output = usize;
    /// Every range key set to its lower end at once, then to its upper end at once: both sets
    /// are valid (the ranges of the table and of `validate` agree). Returns the range keys seen.
    fn visit<M: Registered>(self, _: &M::Params) -> usize {
        let mut n = 0;
        for end in [0, 1] {
            let mut p = M::Params::default();
            n = 0;
            for k in M::KEYS {
                if let KeyKind::Range { lo, hi, .. } = k.kind {
                    M::set(&mut p, k.name, &[lo, hi][end].to_string()).unwrap();
                    n += 1;
                }
            }
            assert_ne!(p, M::Params::default());
            // the locks' crash rule (16 threads with a crash and a master) is off by default;
            // the upper ends may break only a named rule over several keys (gmp's rule that a
            // world's words hold the Ps, Ms and Gs: its upper ends fit today)
            let errs: Vec<_> = M::validate(&p)
                .into_iter()
                .filter(|e| !(end == 1 && COMBINED_LIMITS.contains(&(M::NAME, e.field.as_str()))))
                .collect();
            assert!(errs.is_empty(), "{}: {:?}", M::NAME, errs);
            assert!(M::range_errors(&p).is_empty(), "{}", M::NAME);
        }
        n
    }
}

#[test]
fn range_ends_are_valid_together() {
    let mut total = 0;
    each(|s| total += s.visit(RangeEnds));
    // herd 7, locks 7, accept 12, pool 12, gmp 13 (`locked`, `net_ns` the last), mysql 19 (`logins` the last)
    assert_eq!(total, 70);
}

#[test]
fn the_registry_names_agree() {
    // MECHANISMS, the JSON tag and each mechanism's NAME are the same words, in the same order
    assert_eq!(
        MECHANISMS,
        ["herd", "locks", "accept", "pool", "gmp", "mysql"]
    );
    each(|s| {
        let json = serde_json::to_value(s).unwrap();
        assert_eq!(json["mechanism"], s.mechanism());
        assert_eq!(Scenario::from_json(&json.to_string()), Ok(*s));
        assert!(s
            .to_query()
            .starts_with(&format!("mechanism={}&", s.mechanism())));
        assert_eq!(Scenario::from_query(&s.to_query()), Ok(*s));
        assert!(!s.title().is_empty());
        // every key is read through the scenario too, and set through it
        for k in s.keys() {
            let v = s.get(k.name).unwrap();
            let mut t = *s;
            t.set(k.name, &v).unwrap();
            assert_eq!(t, *s);
        }
        assert_eq!(s.get("no-such-key"), None);
    });
    assert_eq!(
        Scenario::default(),
        Scenario::default_of(MECHANISMS[0]).unwrap()
    );
    assert_eq!(Scenario::default_of("bogus"), None);
    let mut titles: Vec<&str> = MECHANISMS
        .iter()
        .map(|m| Scenario::default_of(m).unwrap().title())
        .collect();
    titles.dedup();
    assert_eq!(titles.len(), MECHANISMS.len());
}

#[test]
fn the_typed_accessors_find_their_own_mechanism_only() {
    use herdlab_core::mechanisms::accept::{Accept, AcceptParams};
    use herdlab_core::mechanisms::herd::{Herd, HerdParams};
    use herdlab_core::mechanisms::locks::{LockParams, Locks};
    let h = Scenario::from(HerdParams {
        workers: 3,
        ..HerdParams::default()
    });
    assert_eq!(h.params::<Herd>().map(|p| p.workers), Some(3));
    assert_eq!(h.params::<Locks>(), None);
    assert_eq!(h.herd().workers, 3);
    let mut a = Accept::wrap(AcceptParams::default());
    a.params_mut::<Accept>().unwrap().workers = 5;
    assert_eq!(a.get("workers").as_deref(), Some("5"));
    assert_eq!(a.params::<Herd>(), None);
    assert_eq!(a.herd(), HerdParams::default());
    let l = Scenario::Locks(LockParams::default());
    assert_eq!(l.locks(), Some(&LockParams::default()));
    assert_eq!(Locks::unwrap(&l), Some(&LockParams::default()));
}

#[test]
fn the_name_tables_match_the_enums() {
    use herdlab_core::mechanisms::accept::{MutexVariant, Strategy};
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
    use herdlab_core::mechanisms::locks::{LockKind, LOCK_NAMES, SHMTX_VARIANT_NAMES};
    let names = |v: Vec<&'static str>| v;
    assert_eq!(
        names(LockKind::ALL.iter().map(|k| k.name()).collect()),
        LOCK_NAMES
    );
    assert_eq!(
        names(ShmtxVariant::ALL.iter().map(|k| k.name()).collect()),
        SHMTX_VARIANT_NAMES
    );
    assert_eq!(
        names(Strategy::ALL.iter().map(|k| k.name()).collect()),
        Strategy::NAMES
    );
    assert_eq!(
        names(MutexVariant::ALL.iter().map(|k| k.name()).collect()),
        MutexVariant::NAMES
    );
    for n in LOCK_NAMES {
        assert_eq!(LockKind::from_name(n).map(LockKind::name), Some(n));
    }
}

#[test]
fn the_old_key_lists_are_the_tables() {
    use herdlab_core::mechanisms::accept::Accept;
    use herdlab_core::mechanisms::herd::Herd;
    use herdlab_core::mechanisms::locks::Locks;
    use herdlab_core::scenario::{ACCEPT_KEYS, HERD_KEYS, LOCK_KEYS};
    let names = |keys: &[Key]| keys.iter().map(|k| k.name).collect::<Vec<_>>();
    assert_eq!(names(Herd::KEYS), HERD_KEYS);
    assert_eq!(names(Locks::KEYS), LOCK_KEYS);
    assert_eq!(names(Accept::KEYS), ACCEPT_KEYS);
}

struct Simulates;

impl Visit for Simulates {
    type Output = u64;
    /// The trait's simulation is the one the parameters start: same trace after some steps.
    fn visit<M: Registered>(self, p: &M::Params) -> u64 {
        let mut a = M::simulate(p);
        let mut n = 0;
        for _ in 0..500 {
            if a.step().is_none() {
                break;
            }
            n += 1;
        }
        let mut b = M::simulate(p);
        for _ in 0..n {
            b.step();
        }
        assert_eq!(a.trace_hash(), b.trace_hash(), "{}", M::NAME);
        n
    }
}

#[test]
fn every_mechanism_simulates_deterministically() {
    each(|s| {
        let steps = s.visit(Simulates);
        assert!(steps > 10, "{}: {steps} steps", s.mechanism());
    });
}
