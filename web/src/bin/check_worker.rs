//! herdlab's model checker in a Web Worker, so the page stays responsive while it explores.
//!
//! Built by trunk as a second binary of herdlab-web (`<link data-trunk rel="rust" data-type="worker"
//! data-bin="check_worker" data-loader-shim …>` in index.html, bindgen target `no-modules`) and
//! started by the page with `new Worker("./check_worker_loader.js")`. The protocol (JSON strings) is
//! in `src/check_proto.rs`. The search is core's `explore` over `check_world(&p)` with the lock
//! invariants (`mechanism=locks`), or core's `herd::invariants::check` (`mechanism=herd`), exactly
//! as `herdlab check` and `herdlab check herd` run them natively.

#[path = "../check_proto.rs"]
#[allow(dead_code)] // the page's half of the protocol is not used here
mod check_proto;

use check_proto::{
    CheckReply, CheckRequest, BROWSER_MAX_HERD_CONNECTIONS, BROWSER_MAX_HERD_WORKERS,
    BROWSER_MAX_MYSQL_CONNECTIONS, BROWSER_MAX_MYSQL_QUERIES, BROWSER_MAX_POOL_REQUESTS,
    BROWSER_MAX_POOL_THREADS, CHECKED,
};
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanisms::herd::{invariants as herd_invariants, HerdParams};
use herdlab_core::mechanisms::locks::LockParams;
use herdlab_core::mechanisms::mysql::{invariants as mysql_invariants, MysqlParams};
use herdlab_core::mechanisms::pool::{invariants as pool_invariants, PoolParams};
use herdlab_core::scenario::Scenario;
use herdlab_core::sim::arrivals::ArrivalPattern;
use herdlab_web_engine::check_locks;

/// Run one request; `progress` gets the states so far (every 65,536), `now_ms` reads a clock.
pub fn run(
    req: &CheckRequest,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    let error = |message: String| CheckReply::Error { message };
    let scenario = match Scenario::from_query(&req.query) {
        Ok(s) => s,
        Err(errs) => {
            return error(
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        }
    };
    let cfg = CheckConfig {
        max_states: req.max_states.max(1),
        ..CheckConfig::default()
    };
    match (req.mechanism.as_str(), scenario) {
        ("locks", Scenario::Locks(p)) => run_locks(&p, &cfg, now_ms, progress),
        ("herd", Scenario::Herd(p)) => run_herd(&p, &cfg, now_ms, progress),
        ("pool", Scenario::Pool(p)) => run_pool(&p, &cfg, now_ms, progress),
        ("mysql", Scenario::Mysql(p)) => run_mysql(&p, &cfg, now_ms, progress),
        (m, _) if CHECKED.contains(&m) => error(format!(
            "the request is for mechanism={m}, but its query is a scenario of another mechanism"
        )),
        (other, _) => error(format!(
            "the checker takes mechanism {}, not '{other}'",
            CHECKED.join(", ")
        )),
    }
}

/// The lock invariants over the checking platform, as `herdlab check` runs them.
fn run_locks(
    p: &LockParams,
    cfg: &CheckConfig,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    let t0 = now_ms();
    // core's explore, instantiated in herdlab-web-engine (compiled for speed, this crate for size)
    let report = check_locks(p, cfg, &mut |states| {
        progress(states, now_ms() - t0);
        true
    });
    CheckReply::Done {
        report,
        ms: now_ms() - t0,
    }
}

/// The herd invariants over the simulator, as `herdlab check herd` runs them (with on-demand
/// arrivals: the network actor may deliver at any point anyway, and the states do not depend on
/// timings).
fn run_herd(
    p: &HerdParams,
    cfg: &CheckConfig,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    if p.workers > BROWSER_MAX_HERD_WORKERS || p.connections > BROWSER_MAX_HERD_CONNECTIONS {
        return CheckReply::Error {
            message: format!(
                "the checker in the browser takes at most {BROWSER_MAX_HERD_WORKERS} workers and \
                 {BROWSER_MAX_HERD_CONNECTIONS} connections (asked: {} and {}); run `herdlab check herd` natively",
                p.workers, p.connections
            ),
        };
    }
    let p = HerdParams {
        arrival: ArrivalPattern::OnDemand,
        ..*p
    };
    let t0 = now_ms();
    let report = herd_invariants::check(&p, cfg, &mut |states| {
        progress(states, now_ms() - t0);
        true
    });
    CheckReply::Done {
        report,
        ms: now_ms() - t0,
    }
}

/// The pool invariants over the simulator, as `herdlab check pool` runs them (every interleaving
/// of the event loop, the pool threads and the arrivals).
fn run_pool(
    p: &PoolParams,
    cfg: &CheckConfig,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    if p.threads > BROWSER_MAX_POOL_THREADS || p.requests > BROWSER_MAX_POOL_REQUESTS {
        return CheckReply::Error {
            message: format!(
                "the checker in the browser takes at most {BROWSER_MAX_POOL_THREADS} pool threads and \
                 {BROWSER_MAX_POOL_REQUESTS} requests (asked: {} and {}); run `herdlab check pool` natively",
                p.threads, p.requests
            ),
        };
    }
    let t0 = now_ms();
    let report = pool_invariants::check(p, cfg, &mut |states| {
        progress(states, now_ms() - t0);
        true
    });
    CheckReply::Done {
        report,
        ms: now_ms() - t0,
    }
}

/// The mysql invariants over the simulator, as `herdlab check mysql` runs them (every
/// interleaving of the clients, the server's threads and the arrivals, with core's clock events
/// after the queries).
fn run_mysql(
    p: &MysqlParams,
    cfg: &CheckConfig,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    if p.connections > BROWSER_MAX_MYSQL_CONNECTIONS || p.queries > BROWSER_MAX_MYSQL_QUERIES {
        return CheckReply::Error {
            message: format!(
                "the checker in the browser takes at most {BROWSER_MAX_MYSQL_CONNECTIONS} connections and \
                 {BROWSER_MAX_MYSQL_QUERIES} queries (asked: {} and {}); run `herdlab check mysql` natively",
                p.connections, p.queries
            ),
        };
    }
    let t0 = now_ms();
    let report = mysql_invariants::check(p, cfg, &mut |states| {
        progress(states, now_ms() - t0);
        true
    });
    CheckReply::Done {
        report,
        ms: now_ms() - t0,
    }
}

#[cfg(target_arch = "wasm32")]
mod worker {
    use super::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    fn post(scope: &DedicatedWorkerGlobalScope, reply: &CheckReply) {
        let _ = scope.post_message(&JsValue::from_str(&reply.to_json()));
    }

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let me = scope.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let now = || js_sys::Date::now();
            let reply = match e.data().as_string().map(|s| CheckRequest::from_json(&s)) {
                Some(Ok(req)) => run(&req, &now, &mut |states, ms| {
                    post(&me, &CheckReply::Progress { states, ms })
                }),
                Some(Err(message)) => CheckReply::Error { message },
                None => CheckReply::Error {
                    message: "the request was not a JSON string".into(),
                },
            };
            post(&me, &reply);
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        post(&scope, &CheckReply::Ready);
    }
}

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("check_worker runs in the browser, as a Web Worker; natively, use `herdlab check`");
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdlab_core::mechanisms::locks::shmtx::ShmtxVariant;
    use herdlab_core::mechanisms::locks::LockParams;
    use herdlab_core::mechanisms::mysql::{invariants as mysql_invariants, MysqlParams};

    fn req(p: LockParams) -> CheckRequest {
        CheckRequest {
            mechanism: "locks".into(),
            query: Scenario::Locks(p).to_query(),
            max_states: 1_000_000,
        }
    }

    #[test]
    fn checks_the_pool_as_core_and_refuses_a_big_one() {
        use herdlab_core::mechanisms::pool::PoolVariant;
        let pool = |p: PoolParams| CheckRequest {
            mechanism: "pool".into(),
            query: Scenario::Pool(p).to_query(),
            max_states: 1_000_000,
        };
        let p = PoolParams {
            variant: PoolVariant::OnePerNotify,
            ..PoolParams::check_preset()
        };
        let reply = run(&pool(p), &|| 0.0, &mut |_, _| {});
        let CheckReply::Done { report, .. } = &reply else {
            panic!("{reply:?}")
        };
        let core = pool_invariants::check(&p, &CheckConfig::default(), &mut |_| true);
        assert_eq!(report.states, core.states);
        let c = report.violation.as_ref().expect("a counterexample");
        assert_eq!(c.violation.invariant, "exactly-once");
        let big = PoolParams {
            threads: 3,
            ..PoolParams::check_preset()
        };
        let reply = run(&pool(big), &|| 0.0, &mut |_, _| {});
        let CheckReply::Error { message } = &reply else {
            panic!("{reply:?}")
        };
        assert!(message.contains("at most 2 pool threads"), "{message}");
    }

    #[test]
    fn checks_the_mysql_pool_preset_and_refuses_a_big_one() {
        use herdlab_core::mechanisms::mysql::MysqlVariant;
        let mysql = |p: MysqlParams| CheckRequest {
            mechanism: "mysql".into(),
            query: Scenario::Mysql(p).to_query(),
            max_states: 1_000_000,
        };
        let p = MysqlParams {
            variant: MysqlVariant::NoStallTimer,
            ..MysqlParams::check_preset()
        };
        let reply = run(&mysql(p), &|| 0.0, &mut |_, _| {});
        let CheckReply::Done { report, .. } = &reply else {
            panic!("{reply:?}")
        };
        let core = mysql_invariants::check(&p, &CheckConfig::default(), &mut |_| true);
        assert_eq!(report.states, core.states);
        assert!(report.complete && report.violation.is_none(), "{report:?}");
        let big = MysqlParams {
            queries: 5,
            ..MysqlParams::check_preset()
        };
        let reply = run(&mysql(big), &|| 0.0, &mut |_, _| {});
        let CheckReply::Error { message } = &reply else {
            panic!("{reply:?}")
        };
        assert!(
            message.contains("at most 2 connections and 4 queries"),
            "{message}"
        );
        let wrong = CheckRequest {
            mechanism: "mysql".into(),
            query: "mechanism=pool".into(),
            max_states: 10,
        };
        assert!(matches!(
            run(&wrong, &|| 0.0, &mut |_, _| {}),
            CheckReply::Error { .. }
        ));
    }

    #[test]
    fn finds_the_lost_wakeup_and_round_trips() {
        let p = LockParams {
            variant: ShmtxVariant::AnnounceAfterCheck,
            threads: 2,
            rounds: 2,
            spin: 4,
            ..Default::default()
        };
        let reply = run(&req(p), &|| 0.0, &mut |_, _| {});
        let CheckReply::Done { report, .. } = &reply else {
            panic!("{reply:?}")
        };
        let c = report.violation.as_ref().expect("a counterexample");
        assert_eq!(c.violation.invariant, "lost-wakeup");
        assert_eq!(CheckReply::from_json(&reply.to_json()), Ok(reply.clone()));
        let r = req(p);
        assert_eq!(CheckRequest::from_json(&r.to_json()), Ok(r));
    }

    #[test]
    fn correct_holds_and_reports_progress() {
        let p = LockParams {
            threads: 2,
            rounds: 3,
            spin: 4,
            ..Default::default()
        };
        let mut ticks = 0;
        let reply = run(&req(p), &|| 0.0, &mut |_, _| ticks += 1);
        let CheckReply::Done { report, .. } = reply else {
            panic!("{reply:?}")
        };
        assert!(report.complete);
        assert!(report.violation.is_none());
        assert_eq!(ticks, report.states / 65_536);
        let bad = run(
            &CheckRequest {
                mechanism: "locks".into(),
                query: "mechanism=herd".into(),
                max_states: 10,
            },
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(matches!(bad, CheckReply::Error { .. }));
        let bad = run(
            &CheckRequest {
                mechanism: "locks".into(),
                query: "mechanism=locks&threads=99".into(),
                max_states: 10,
            },
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(matches!(bad, CheckReply::Error { message } if message.contains("threads")));
    }

    /// Every mechanism of [`CHECKED`] has its arm (a request for it with another mechanism's
    /// scenario is told so), and any other is refused with the list.
    #[test]
    fn every_checked_mechanism_has_its_arm_and_others_get_the_list() {
        let ask = |mechanism: &str, query: &str| {
            run(
                &CheckRequest {
                    mechanism: mechanism.into(),
                    query: query.into(),
                    max_states: 10,
                },
                &|| 0.0,
                &mut |_, _| {},
            )
        };
        for m in CHECKED {
            let other = if *m == "accept" { "herd" } else { "accept" };
            let reply = ask(m, &format!("mechanism={other}"));
            let CheckReply::Error { message } = reply else {
                panic!("{m}: {reply:?}")
            };
            assert!(message.contains("another mechanism"), "{m}: {message}");
        }
        for m in ["gmp", "accept"] {
            assert_eq!(
                ask(m, &format!("mechanism={m}")),
                CheckReply::Error {
                    message: format!(
                        "the checker takes mechanism locks, herd, pool, mysql, not '{m}'"
                    )
                }
            );
        }
    }

    fn herd_req(query: &str) -> CheckRequest {
        CheckRequest {
            mechanism: "herd".into(),
            query: query.into(),
            max_states: 1_000_000,
        }
    }

    #[test]
    fn the_broken_sleeper_loses_a_wakeup_in_nine_steps() {
        let q = "mechanism=herd&workers=2&cpus=2&mode=exclusive&connections=2&variant=broken-sleeper&seed=1";
        let reply = run(&herd_req(q), &|| 0.0, &mut |_, _| {});
        let CheckReply::Done { report, .. } = &reply else {
            panic!("{reply:?}")
        };
        let c = report.violation.as_ref().expect("a counterexample");
        assert_eq!(c.violation.invariant, "lost-wakeup");
        // as `herdlab check herd --variant broken-sleeper` prints it
        assert_eq!(c.schedule, [0, 0, 1, 1, 2, 0, 0, 1, 1]);
        assert_eq!(CheckReply::from_json(&reply.to_json()), Ok(reply.clone()));
        // a request without a mechanism is a lock request
        let old = r#"{"query":"mechanism=herd&workers=2","max_states":10}"#;
        let r = CheckRequest::from_json(old).expect("reads");
        assert_eq!(r.mechanism, "locks");
        assert!(matches!(
            run(&r, &|| 0.0, &mut |_, _| {}),
            CheckReply::Error { .. }
        ));
    }

    #[test]
    fn the_correct_herd_holds_and_big_herds_are_refused() {
        let q = "mechanism=herd&workers=2&cpus=2&mode=exclusive&connections=2&variant=correct";
        let reply = run(&herd_req(q), &|| 0.0, &mut |_, _| {});
        let CheckReply::Done { report, .. } = reply else {
            panic!("{reply:?}")
        };
        assert!(report.complete && report.violation.is_none());
        let big = run(
            &herd_req("mechanism=herd&workers=5&connections=2"),
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(
            matches!(&big, CheckReply::Error { message } if message.contains("at most 4 workers")),
            "{big:?}"
        );
        let odd = run(
            &CheckRequest {
                mechanism: "futex".into(),
                query: "mechanism=herd".into(),
                max_states: 10,
            },
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(matches!(odd, CheckReply::Error { .. }));
    }
}
