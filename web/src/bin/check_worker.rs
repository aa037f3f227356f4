//! herdlab's model checker in a Web Worker, so the page stays responsive while it explores.
//!
//! Built by trunk as a second binary of herdlab-web (`<link data-trunk rel="rust" data-type="worker"
//! data-bin="check_worker" data-loader-shim …>` in index.html, bindgen target `no-modules`) and
//! started by the page with `new Worker("./check_worker_loader.js")`. The protocol (JSON strings) is
//! in `src/check_proto.rs`. The search is core's `explore` over `check_world(&p)` with the lock
//! invariants, exactly as `herdlab check` runs it natively.

#[path = "../check_proto.rs"]
#[allow(dead_code)] // the page's half of the protocol is not used here
mod check_proto;

use check_proto::{CheckReply, CheckRequest};
use herdlab_core::check::{explore, CheckConfig};
use herdlab_core::locks::invariants::{check_state, check_terminal, check_world};
use herdlab_core::scenario::Scenario;

/// Run one request; `progress` gets the states so far (every 65,536), `now_ms` reads a clock.
pub fn run(
    req: &CheckRequest,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u64, f64),
) -> CheckReply {
    let p = match Scenario::from_query(&req.query) {
        Ok(Scenario::Locks(p)) => p,
        Ok(_) => {
            return CheckReply::Error {
                message: "the checker takes lock scenarios only (mechanism=locks)".into(),
            }
        }
        Err(errs) => {
            return CheckReply::Error {
                message: errs
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        }
    };
    let cfg = CheckConfig {
        max_states: req.max_states.max(1),
        ..CheckConfig::default()
    };
    let t0 = now_ms();
    let report = explore(
        check_world(&p),
        &cfg,
        &|s| check_state(&p, s),
        &|s| check_terminal(&p, s),
        &mut |states| {
            progress(states, now_ms() - t0);
            true
        },
    );
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
    use herdlab_core::locks::shmtx::ShmtxVariant;
    use herdlab_core::locks::LockParams;

    fn req(p: LockParams) -> CheckRequest {
        CheckRequest {
            query: Scenario::Locks(p).to_query(),
            max_states: 1_000_000,
        }
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
                query: "mechanism=herd".into(),
                max_states: 10,
            },
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(matches!(bad, CheckReply::Error { .. }));
        let bad = run(
            &CheckRequest {
                query: "mechanism=locks&threads=99".into(),
                max_states: 10,
            },
            &|| 0.0,
            &mut |_, _| {},
        );
        assert!(matches!(bad, CheckReply::Error { message } if message.contains("threads")));
    }
}
