//! The scenario parser's outputs, frozen: for a grid of queries and JSON texts covering every key
//! of every mechanism (good values, range ends, values just out of range, bad words, unknown and
//! UI keys, refused combinations), the lenient parse's query string and its messages, and what the
//! strict JSON parser says. The site and the CLI show these messages, so they are a contract:
//! `data/scenario_contract.txt` was written by the parser before the registry refactor.
//! `HERDLAB_BLESS=1 cargo test -p herdlab-core --test scenario_contract` rewrites it after a
//! deliberate change.
use herdlab_core::scenario::Scenario;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn queries() -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    let herd: &[(&str, &[&str])] = &[
        (
            "workers",
            &["1", "64", "0", "65", "x", "", " 5", "+5", "-1", "08"],
        ),
        ("cpus", &["1", "16", "0", "17"]),
        (
            "mode",
            &["wake-all", "exclusive", "lifo-exclusive", "Exclusive", ""],
        ),
        ("arrival", &["on-demand", "burst", "poisson", "steady", "x"]),
        ("burst", &["1", "1024", "0", "1025"]),
        ("rate", &["1", "10000000", "0", "10000001"]),
        ("connections", &["1", "1000000", "0", "1000001"]),
        ("service", &["0", "100000000", "100000001", "1.5"]),
        ("variant", &["correct", "broken-sleeper", "nope"]),
        ("primitive", &["accept", "futex", "condvar", "mutex"]),
        (
            "seed",
            &["0", "18446744073709551615", "18446744073709551616", "-1"],
        ),
        ("colour", &["red"]),
        ("service_ns", &["5"]),
    ];
    let locks: &[(&str, &[&str])] = &[
        (
            "lock",
            &["shmtx", "ttas", "spin-yield", "ticket", "futex", "mcs"],
        ),
        (
            "variant",
            &[
                "correct",
                "no-wait-decrement",
                "announce-after-check",
                "unlock-reads-wait-first",
                "plain-load-store",
                "seed-listing",
                "x",
            ],
        ),
        ("threads", &["1", "16", "0", "17"]),
        ("rounds", &["1", "1000000", "0", "1000001"]),
        ("cpus", &["1", "16", "0", "17"]),
        ("spin", &["1", "65536", "0", "65537"]),
        ("semaphore", &["on", "off", "true", "false", "yes"]),
        ("yield", &["1", "65536", "0", "65537"]),
        ("cs", &["0", "10000000", "10000001"]),
        ("crash", &["on", "off", "true"]),
        ("master", &["on", "off", "false"]),
        ("seed", &["0", "18446744073709551615", "x"]),
        ("workers", &["4"]),
    ];
    let accept: &[(&str, &[&str])] = &[
        (
            "strategy",
            &[
                "herd",
                "shared-epoll",
                "exclusive",
                "accept-mutex",
                "reuseport",
                "blocking",
                "x",
            ],
        ),
        ("workers", &["1", "64", "0", "65"]),
        ("cpus", &["1", "16", "0", "17"]),
        ("connections", &["1", "1000000", "0", "1000001"]),
        ("rate", &["1", "10000000", "0", "10000001"]),
        ("arrival", &["on-demand", "burst", "poisson", "steady", "x"]),
        ("burst", &["1", "1024", "0", "1025"]),
        ("requests", &["1", "1000", "0", "1001"]),
        ("service", &["0", "100000000", "100000001"]),
        ("think", &["0", "1000000000", "1000000001", "-1"]),
        (
            "multi_accept",
            &["true", "false", "on", "off", "maybe", "1"],
        ),
        ("reorder_every", &["0", "65536", "65537"]),
        ("delay", &["1", "60000", "0", "60001"]),
        ("worker_connections", &["1", "65536", "0", "65537"]),
        (
            "variant",
            &[
                "correct",
                "unlock-before-accept",
                "no-disable",
                "no-timer",
                "x",
            ],
        ),
        ("local_clients", &["true", "false", "on", "off", "no"]),
        (
            "seed",
            &["0", "18446744073709551615", "18446744073709551616"],
        ),
        ("lock", &["shmtx"]),
    ];
    for (mech, table) in [("herd", herd), ("locks", locks), ("accept", accept)] {
        for (k, vs) in table {
            for v in *vs {
                q.push(format!("mechanism={mech}&{k}={v}"));
            }
            q.push(format!("mechanism={mech}&{k}"));
        }
    }
    for s in [
        "",
        "?",
        "workers=4&mode=exclusive",
        "mechanism=bogus&workers=4",
        "mechanism=locks&mechanism=herd&workers=3",
        "mechanism=herd&mechanism=bogus&threads=3",
        "mechanism=herd&step=4&picks=1:n&id=x&main=y&controls=z&stop=1&caption=c&left=l&right=r&lesson=s&schedule=1,2&strategies=herd",
        "mechanism=herd&mode=lifo-exclusive&primitive=futex",
        "mechanism=herd&mode=lifo-exclusive&primitive=condvar&variant=broken-sleeper",
        "mechanism=herd&variant=broken-sleeper&primitive=accept&mode=lifo-exclusive",
        "mechanism=locks&lock=ttas&variant=no-wait-decrement",
        "mechanism=locks&lock=ticket&crash=on",
        "mechanism=locks&lock=ticket&crash=on&variant=seed-listing&threads=16",
        "mechanism=locks&crash=on&threads=16",
        "mechanism=locks&crash=on&threads=16&master=off",
        "mechanism=locks&crash=on&threads=15",
        "mechanism=accept&strategy=accept-mutex&workers=4&cpus=3&multi_accept=on&variant=no-timer",
        "mechanism=accept&workers=999&connections=3&strategy=exclusive",
        "mechanism=herd&workers=%36%34&mode=wake%2Dall",
        "mechanism=herd&workers=6&workers=7",
        "mechanism=herd&&&workers=2&",
        "mechanism=herd&=5",
        "mechanism=locks&service=5",
    ] {
        q.push(s.to_string());
    }
    q
}

fn json_cases() -> Vec<String> {
    let mut v: Vec<String> = [
        r#"{"mechanism":"herd"}"#,
        r#"{"mechanism":"locks"}"#,
        r#"{"mechanism":"accept"}"#,
        r#"{}"#,
        r#"{"mechanism":"bogus"}"#,
        r#"{"mechanism":"herd","workers":0,"cpus":17,"burst":0,"rate":0,"connections":0,"service_ns":100000001}"#,
        r#"{"mechanism":"herd","mode":"lifo-exclusive","primitive":"futex","variant":"broken-sleeper"}"#,
        r#"{"mechanism":"herd","workers":65,"mode":"lifo-exclusive","primitive":"condvar"}"#,
        r#"{"mechanism":"herd","wrkers":6}"#,
        r#"{"mechanism":"locks","lock":"ttas","variant":"plain-load-store","crash":true,"threads":16}"#,
        r#"{"mechanism":"locks","threads":0,"cpus":0,"rounds":0,"spin":0,"yield_after":0,"cs_ns":99999999999}"#,
        r#"{"mechanism":"locks","threads":17}"#,
        r#"{"mechanism":"locks","crash":true,"threads":16}"#,
        r#"{"mechanism":"accept","workers":0,"cpus":17,"connections":0,"rate":0,"burst":0,"requests":0,"service_ns":100000001,"think_ns":1000000001,"reorder_every":65537,"mutex_delay_ms":0,"worker_connections":0}"#,
        r#"{"mechanism":"accept","workers":65}"#,
        r#"{"mechanism":"accept","strategy":"accept-mutex","multi_accept":true,"variant":"no-disable","local_clients":true}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for q in queries() {
        let (s, _) = Scenario::from_query_lenient(&q);
        v.push(serde_json::to_string(&s).unwrap());
    }
    v
}

fn render() -> String {
    let mut out = String::new();
    for q in queries() {
        let (s, errs) = Scenario::from_query_lenient(&q);
        out.push_str(&format!("query {q}\n  -> {}\n", s.to_query()));
        for e in &errs {
            out.push_str(&format!("  !! {e}\n"));
        }
        let strict = Scenario::from_query(&q);
        assert_eq!(strict.is_ok(), errs.is_empty(), "{q}");
        if let Ok(t) = strict {
            assert_eq!(t, s, "{q}");
        }
        // the query string the parser writes reads back to the same scenario, with no error
        // (kept values that fail validation excepted: the lenient parse keeps some of them)
        let (back, back_errs) = Scenario::from_query_lenient(&s.to_query());
        assert_eq!(back, s, "{q}");
        assert_eq!(back_errs.is_empty(), s.validate().is_empty(), "{q}");
    }
    for j in json_cases() {
        match Scenario::from_json(&j) {
            Ok(s) => out.push_str(&format!("json {j}\n  -> {}\n", s.to_query())),
            Err(e) => out.push_str(&format!("json {j}\n  !! {e}\n")),
        }
    }
    out
}

#[test]
fn parser_outputs_are_the_frozen_ones() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scenario_contract.txt"
    );
    let got = render();
    if std::env::var_os("HERDLAB_BLESS").is_some() {
        std::fs::write(path, &got).unwrap();
        return;
    }
    // compiled in, so the test also runs on wasm32 (no file system there)
    let want = include_str!("data/scenario_contract.txt");
    if got != want {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "line {}", i + 1);
        }
        assert_eq!(got.lines().count(), want.lines().count());
    }
}
