//! Every machine written once as a step table: the straight-line form (`run`, for the native
//! platform) and the stepped form (`next_op`/`complete`, for the simulator, the checker and the
//! site) issue the same operations and end in the same state, against a recorder that feeds seeded
//! answers, over seeds and parameters; every line a state shows stands in its listing and says what
//! the state does; every module doc's state table names the real states and no other. (ngx_shmtx's
//! own tables are in `lock_forms.rs`; the lines as they were before the conversion are pinned by
//! `golden_lines_forms.rs`.)

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use herdlab_core::machine::listing::{LineName, Listing};
use herdlab_core::machine::steps::Recorder;
use herdlab_core::machine::Machine;
use herdlab_core::mechanisms::accept::blocking_worker::{self, BlockingWorker};
use herdlab_core::mechanisms::accept::event_worker::{self, EventWorker, WorkerConfig};
use herdlab_core::mechanisms::accept::{MutexVariant, Strategy};
use herdlab_core::mechanisms::herd::accept_worker::{self, AcceptWorker};
use herdlab_core::mechanisms::herd::{condvar_herd, futex_herd};
use herdlab_core::mechanisms::locks::shmtx::{self, Progress, ShmtxVariant};
use herdlab_core::mechanisms::locks::{futex_mutex, ticket, ttas};
use herdlab_core::mechanisms::locks::{LockKind, LockParams, LockWorker, Phase};
use herdlab_core::op::{EpId, ListenerId, Op, WakeCount};
use herdlab_core::sim::accept::{AcceptModel, SleeperOrder};
use herdlab_core::waitqueue::Enqueue;

/// Check that `line` is in `listing` and, if it carries a name, that the text says what `says`
/// wants of that name.
fn assert_line<L: LineName>(
    named: &Listing<L>,
    line: u16,
    says: &dyn Fn(L) -> &'static [&'static str],
    what: &str,
) {
    assert!(
        line >= 1 && (line as usize) <= named.text.len(),
        "{what}: line {line} is not in the listing {:?}",
        named.text
    );
    let text = named.text[line as usize - 1];
    let name = named
        .name_of(line)
        .unwrap_or_else(|| panic!("{what}: line {line} ({text:?}) carries no name"));
    // every name on the line must be one a state could mean: check the first one's words
    assert!(
        says(name).iter().any(|w| text.contains(w)),
        "{what}: line {line} named {name:?} reads {text:?}"
    );
}

/// Drive `straight` with its straight-line `run` against a recorder, then a fresh copy with the
/// stepped form on the same answers: the same operations, every step's line in its listing, and
/// the same final state. Returns whether the straight run finished (rather than hitting the
/// recorder's budget).
fn forms_agree<M: Machine, L: LineName>(
    fresh: &M,
    run: &dyn Fn(&mut M, &mut Recorder) -> Result<(), ()>,
    rec: &mut Recorder,
    named: &dyn Fn(&M) -> &'static Listing<L>,
    says: &dyn Fn(L) -> &'static [&'static str],
    what: &str,
) -> bool {
    let mut straight = fresh.clone();
    let out = run(&mut straight, rec);
    let mut stepped = fresh.clone();
    for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
        let what = format!("{what} step {i}");
        assert_eq!(
            stepped.next_op(),
            op,
            "{what}: the forms issued different operations"
        );
        assert_eq!(stepped.listing(), named(&stepped).text, "{what}");
        assert_line(named(&stepped), stepped.line(), says, &what);
        stepped.complete(r);
    }
    assert_eq!(stepped, straight, "{what}: different states at the end");
    out.is_ok()
}

fn ttas_says(n: ttas::Ln) -> &'static [&'static str] {
    match n {
        ttas::Ln::Entry => &["for each round"],
        ttas::Ln::Test => &["while lock != 0"],
        ttas::Ln::Spin => &["pause()", "sched_yield"],
        ttas::Ln::Set => &["cas(lock, 0, 1)"],
        ttas::Ln::Critical => &["critical_section"],
        ttas::Ln::Release => &["lock = 0"],
    }
}

fn ticket_says(n: ticket::Ln) -> &'static [&'static str] {
    match n {
        ticket::Ln::Entry => &["for each round"],
        ticket::Ln::Take => &["fetch_add(next, 1)"],
        ticket::Ln::Wait => &["while serving != my"],
        ticket::Ln::Critical => &["critical_section"],
        ticket::Ln::Handover => &["serving = my + 1"],
    }
}

fn futex_says(n: futex_mutex::Ln) -> &'static [&'static str] {
    match n {
        futex_mutex::Ln::Entry => &["for each round"],
        futex_mutex::Ln::Fast => &["cas(state, 0, 1)"],
        futex_mutex::Ln::Mark => &["swap(state, 2)"],
        futex_mutex::Ln::Sleep => &["futex_wait"],
        futex_mutex::Ln::Critical => &["critical_section"],
        futex_mutex::Ln::Release => &["swap(state, 0)"],
        futex_mutex::Ln::Wake => &["futex_wake"],
    }
}

#[test]
fn ttas_ticket_and_futex_mutex_lock_and_unlock_forms_agree() {
    // each lock's own tables, lock then unlock, straight against stepped
    for seed in 0..200 {
        for yield_after in [0, 1, 3] {
            let fresh = if yield_after == 0 {
                ttas::Ttas::spin()
            } else {
                ttas::Ttas::spin_then_yield(yield_after)
            };
            let mut straight = fresh;
            let mut rec = Recorder::new(seed, 40);
            let out = straight
                .lock_run(&mut rec)
                .and_then(|()| straight.unlock_run(&mut rec));
            let mut stepped = fresh;
            stepped.start_lock();
            let mut locked = false;
            for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
                let what = format!("ttas/{yield_after} seed {seed} step {i}");
                let (op2, line) = if locked {
                    (stepped.unlock_op(), stepped.unlock_line())
                } else {
                    (stepped.lock_op(), stepped.lock_line())
                };
                assert_eq!(op2, op, "{what}");
                assert_line(stepped.named_listing(), line, &ttas_says, &what);
                if locked {
                    assert_eq!(stepped.unlock_complete(r), Progress::Finished);
                } else {
                    locked = stepped.lock_complete(r) == Progress::Finished;
                }
            }
            assert_eq!(stepped, straight, "ttas/{yield_after} seed {seed}: {out:?}");
        }
        let mut straight = ticket::Ticket::default();
        let mut rec = Recorder::new(seed, 40);
        rec.draw_values_from(&[0, 1, 2]);
        let out = straight
            .lock_run(&mut rec)
            .and_then(|()| straight.unlock_run(&mut rec));
        let mut stepped = ticket::Ticket::default();
        let mut locked = false;
        for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
            let what = format!("ticket seed {seed} step {i}");
            let (op2, line) = if locked {
                (stepped.unlock_op(), stepped.unlock_line())
            } else {
                (stepped.lock_op(), stepped.lock_line())
            };
            assert_eq!(op2, op, "{what}");
            assert_line(stepped.named_listing(), line, &ticket_says, &what);
            if locked {
                assert_eq!(stepped.unlock_complete(r), Progress::Finished);
            } else {
                locked = stepped.lock_complete(r) == Progress::Finished;
            }
        }
        assert_eq!(stepped, straight, "ticket seed {seed}: {out:?}");
        if out.is_ok() {
            // the hand-over names my ticket plus one
            let Some(Op::Store(_, v)) = rec.ops().last().copied() else {
                panic!("ticket seed {seed}: the unlock is a store: {:?}", rec.ops())
            };
            let Some(Op::FetchAdd(..)) = rec.ops().first().copied() else {
                panic!("ticket seed {seed}: the lock takes a ticket first")
            };
            let herdlab_core::op::OpResult::Value(my) = rec.results()[0] else {
                panic!()
            };
            assert_eq!(v, my + 1, "ticket seed {seed}");
        }
        let mut straight = futex_mutex::FutexMutex::default();
        let mut rec = Recorder::new(seed, 40);
        let out = straight
            .lock_run(&mut rec)
            .and_then(|()| straight.unlock_run(&mut rec));
        let mut stepped = futex_mutex::FutexMutex::default();
        let mut locked = false;
        for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
            let what = format!("futex seed {seed} step {i}");
            let (op2, line) = if locked {
                (stepped.unlock_op(), stepped.unlock_line())
            } else {
                (stepped.lock_op(), stepped.lock_line())
            };
            assert_eq!(op2, op, "{what}");
            assert_line(stepped.named_listing(), line, &futex_says, &what);
            if locked {
                let _ = stepped.unlock_complete(r);
            } else if stepped.lock_complete(r) == Progress::Finished {
                locked = true;
                stepped.start_unlock();
            }
        }
        assert_eq!(stepped, straight, "futex seed {seed}: {out:?}");
    }
}

#[test]
fn the_masters_force_unlock_forms_agree() {
    // the master of a crash scenario: reap, then ngx_shmtx_force_unlock, straight against stepped
    let mut finished = 0;
    for variant in ShmtxVariant::ALL {
        for semaphore in [true, false] {
            for seed in 0..60 {
                let p = LockParams {
                    lock: LockKind::Shmtx,
                    variant,
                    semaphore,
                    crash: true,
                    ..LockParams::default()
                };
                let fresh = LockWorker::master(&p);
                let mut straight = fresh;
                let mut rec = Recorder::new(seed, 24);
                rec.draw_values_from(&[0, 1, 2, 3]);
                let out = straight.unlock_run(&mut rec);
                let mut stepped = fresh;
                for (i, (&op, &r)) in rec.ops().iter().zip(rec.results()).enumerate() {
                    let what = format!("{variant:?} sem={semaphore} seed {seed} step {i}");
                    assert_eq!(stepped.next_op(), op, "{what}");
                    let line = stepped.line();
                    let text = stepped.listing()[line as usize - 1];
                    let ok = match op {
                        Op::FutexWait { .. } | Op::Load(herdlab_core::mechanisms::locks::DEAD) => {
                            text.contains("waitpid")
                        }
                        Op::Cas { word, .. } if word == shmtx::LOCK => {
                            text.contains("cas(lock, pid, 0)")
                        }
                        Op::Load(w) if w == shmtx::WAIT => text.contains("w = wait"),
                        Op::Cas { word, .. } if word == shmtx::WAIT => {
                            text.contains("cas(wait, w, w - 1)")
                        }
                        Op::SemPost(_) => text.contains("sem_post"),
                        _ => false,
                    };
                    assert!(ok, "{what}: {op:?} shows line {line}: {text:?}");
                    stepped.complete(r);
                }
                assert_eq!(stepped, straight, "{variant:?} seed {seed}: {out:?}");
                if out.is_ok() {
                    finished += 1;
                    assert_eq!(straight.phase(), Phase::Done);
                    assert_eq!(straight.next_op(), Op::Exit);
                    assert_eq!(straight.line(), 1);
                }
            }
        }
    }
    assert!(finished > 0);
}

fn futex_worker_says(n: futex_herd::WorkerLn) -> &'static [&'static str] {
    use futex_herd::WorkerLn::*;
    match n {
        Load => &["tickets.load()"],
        Claim => &["tickets.cas(t, t - 1)"],
        Handle => &["handle(job)"],
        Announce => &["waiters.fetch_add(1)"],
        Wait => &["futex_wait"],
        Unannounce => &["waiters.fetch_sub(1)"],
        End => &["}"],
    }
}

fn futex_producer_says(n: futex_herd::ProducerLn) -> &'static [&'static str] {
    use futex_herd::ProducerLn::*;
    match n {
        Await => &["await_event"],
        Publish => &["tickets.fetch_add(1)"],
        Check => &["waiters.load() > 0"],
        Wake => &["futex_wake"],
        Stop => &["STOP"],
    }
}

fn condvar_worker_says(n: condvar_herd::WorkerLn) -> &'static [&'static str] {
    use condvar_herd::WorkerLn::*;
    match n {
        Lock => &["m.lock()"],
        Load => &["t = tickets"],
        Claim => &["tickets = t - 1; m.unlock()"],
        Handle => &["handle(job)"],
        Relock => &["m.lock(); continue"],
        Announce => &["waiters += 1"],
        Wait => &["cv.wait"],
        Unannounce => &["waiters -= 1"],
        End => &["}"],
    }
}

fn condvar_producer_says(n: condvar_herd::ProducerLn) -> &'static [&'static str] {
    use condvar_herd::ProducerLn::*;
    match n {
        Await => &["await_event"],
        Lock => &["m.lock()"],
        Publish => &["tickets += 1"],
        Notify => &["cv.notify_"],
        Unlock => &["m.unlock()"],
        Stop => &["STOP"],
    }
}

fn accept_worker_says(n: accept_worker::Ln) -> &'static [&'static str] {
    use accept_worker::Ln::*;
    match n {
        Top => &["loop {"],
        Fast => &["if accept_queue not empty: take head, return"],
        TestFirst => &["if accept_queue empty:"],
        Prepare => &["prepare_to_wait", "__add_wait_queue_exclusive"],
        SleepIfEmpty => &["schedule()"],
        Schedule => &["schedule()"],
        Take => &["take head, break"],
        Finish => &["finish_wait"],
        Handle => &["handle(fd)"],
    }
}

fn herd_values() -> [u32; 5] {
    [0, 1, 2, futex_herd::STOP, futex_herd::STOP | 1]
}

#[test]
fn every_herd_threads_forms_agree() {
    let mut exits = [0u32; 5];
    for seed in 0..150 {
        for wake in [WakeCount::All, WakeCount::Up(1)] {
            let what = format!("futex producer {wake:?} seed {seed}");
            let mut rec = Recorder::new(seed, 30);
            if forms_agree(
                &futex_herd::FutexProducer::new(wake),
                &|m, p| m.run(p),
                &mut rec,
                &|m| m.named_listing(),
                &futex_producer_says,
                &what,
            ) {
                exits[0] += 1;
            }
            let what = format!("condvar producer {wake:?} seed {seed}");
            let mut rec = Recorder::new(seed, 40);
            if forms_agree(
                &condvar_herd::CondvarProducer::new(wake),
                &|m, p| m.run(p),
                &mut rec,
                &|m| m.named_listing(),
                &condvar_producer_says,
                &what,
            ) {
                exits[1] += 1;
            }
        }
        let what = format!("futex worker seed {seed}");
        let mut rec = Recorder::new(seed, 30);
        rec.draw_values_from(&herd_values());
        if forms_agree(
            &futex_herd::FutexWorker::new(700),
            &|m, p| m.run(p),
            &mut rec,
            &|m| m.named_listing(),
            &futex_worker_says,
            &what,
        ) {
            exits[2] += 1;
        }
        let what = format!("condvar worker seed {seed}");
        let mut rec = Recorder::new(seed, 30);
        rec.draw_values_from(&herd_values());
        if forms_agree(
            &condvar_herd::CondvarWorker::new(700),
            &|m, p| m.run(p),
            &mut rec,
            &|m| m.named_listing(),
            &condvar_worker_says,
            &what,
        ) {
            exits[3] += 1;
        }
        for order in [SleeperOrder::EnqueueThenTest, SleeperOrder::TestThenEnqueue] {
            for enqueue in [
                Enqueue::NonExclusiveHead,
                Enqueue::ExclusiveTail,
                Enqueue::ExclusiveHead,
            ] {
                let what = format!("accept worker {order:?} {enqueue:?} seed {seed}");
                let mut rec = Recorder::new(seed, 20);
                let fresh = AcceptWorker::new(700, AcceptModel { enqueue, order });
                if forms_agree(
                    &fresh,
                    &|m, p| m.run(p),
                    &mut rec,
                    &|m| m.named_listing(),
                    &accept_worker_says,
                    &what,
                ) {
                    exits[4] += 1;
                }
            }
        }
    }
    // the seeds reach the exits too, not only the budget
    assert!(exits.iter().all(|&n| n > 10), "{exits:?}");
}

#[test]
fn a_finished_herd_thread_exits_and_rests_on_its_end_line() {
    // the straight form's end is the stepped form's exit
    let mut w = futex_herd::FutexWorker::new(0);
    let mut rec = Recorder::new(1, 10);
    rec.fix_loads(futex_herd::STOP);
    assert_eq!(w.run(&mut rec), Ok(()));
    assert_eq!(rec.ops(), &[Op::Load(futex_herd::TICKETS)]);
    assert_eq!(w.next_op(), Op::Exit);
    assert_eq!(w.listing()[w.line() as usize - 1], "}");
    // and the first straight step of an exited thread is none at all
    let before = rec.ops().len();
    assert_eq!(w.run(&mut rec), Ok(()));
    assert_eq!(rec.ops().len(), before);
}

fn event_says(n: event_worker::Ln) -> &'static [&'static str] {
    use event_worker::Ln::*;
    match n {
        Register => &["epoll_ctl(ep, ADD, listen_fd, flags)"],
        Trylock => &["trylock(accept_mutex)"],
        Enable => &["if !held: epoll_ctl(ep, ADD, listen_fd)"],
        Disable => &["else if held: epoll_ctl(ep, DEL, listen_fd)"],
        Wait => &["epoll_wait"],
        Accept => &["accept4"],
        AddConn => &["epoll_ctl(ep, ADD, fd, EPOLLIN|EPOLLET)"],
        Reorder => &["epoll_ctl(ep, DEL, listen_fd); epoll_ctl(ep, ADD, listen_fd, EXCLUSIVE)"],
        Unlock => &["unlock(accept_mutex)"],
        Read => &["read(fd)"],
        Handle => &["handle(r)"],
        Respond => &["write(fd, response)"],
    }
}

fn blocking_says(n: blocking_worker::Ln) -> &'static [&'static str] {
    use blocking_worker::Ln::*;
    match n {
        Accept => &["accept(listen_fd)"],
        Sleep => &["sleep until a connection"],
        Take => &["take the connection"],
        Recv => &["read(fd)"],
        Handle => &["handle(r)"],
        Respond => &["write(fd, response)"],
    }
}

#[test]
fn every_accept_threads_forms_agree() {
    let mut configs = Vec::new();
    for strategy in Strategy::ALL {
        if strategy == Strategy::Blocking {
            continue;
        }
        for variant in MutexVariant::ALL {
            if variant != MutexVariant::Correct && strategy != Strategy::AcceptMutex {
                continue;
            }
            for (multi_accept, reorder_every, worker_connections) in
                [(false, 16, 512), (true, 2, 8), (false, 1, 4)]
            {
                for registers in [true, false] {
                    configs.push(WorkerConfig {
                        strategy,
                        index: 1,
                        ep: EpId(1),
                        listener: ListenerId(1),
                        registers,
                        service_ns: 900,
                        multi_accept,
                        reorder_every,
                        mutex_delay_ns: 1_000_000,
                        worker_connections,
                        variant,
                    });
                }
            }
        }
    }
    let mut stats = event_worker::WorkerStats::default();
    for cfg in configs {
        for seed in 0..40 {
            let what = format!("{cfg:?} seed {seed}");
            let fresh = EventWorker::new(cfg);
            let mut rec = Recorder::new(seed, 60);
            rec.draw_values_from(&[0, 2]);
            forms_agree(
                &fresh,
                &|m, p| m.run(p),
                &mut rec,
                &|m| m.named_listing(),
                &event_says,
                &what,
            );
            // the counters are left out of equality: compare them too
            let mut straight = fresh.clone();
            let mut rec2 = Recorder::new(seed, 60);
            rec2.draw_values_from(&[0, 2]);
            let _ = straight.run(&mut rec2);
            let mut stepped = fresh.clone();
            for &r in rec2.results() {
                stepped.complete(r);
            }
            assert_eq!(stepped.stats(), straight.stats(), "{what}");
            let s = straight.stats();
            stats.accepted += s.accepted;
            stats.reorders += s.reorders;
            stats.lock_acquired += s.lock_acquired;
            stats.lock_failed += s.lock_failed;
            stats.requests += s.requests;
        }
    }
    // the seeds reach every part of the loop
    assert!(
        stats.accepted > 0
            && stats.reorders > 0
            && stats.lock_acquired > 0
            && stats.lock_failed > 0
            && stats.requests > 0,
        "{stats:?}"
    );
    for seed in 0..100 {
        let what = format!("blocking seed {seed}");
        let fresh = BlockingWorker::new(900);
        let mut rec = Recorder::new(seed, 30);
        forms_agree(
            &fresh,
            &|m, p| m.run(p),
            &mut rec,
            &|m| m.named_listing(),
            &blocking_says,
            &what,
        );
    }
}

/// The state names in a module doc's table (the first backticked word of each part of each row's
/// first cell), from `section` to the next heading.
fn doc_states(src: &str, section: &str) -> Vec<String> {
    let start = src
        .find(section)
        .unwrap_or_else(|| panic!("no {section:?}"));
    let rest = &src[start + section.len()..];
    let end = rest.find("//! # ").unwrap_or(rest.len());
    let mut names = Vec::new();
    for line in rest[..end].lines().filter(|l| l.starts_with("//! | `")) {
        let cell = line
            .trim_start_matches("//! | ")
            .split(" | ")
            .next()
            .unwrap();
        for part in cell.split(", ") {
            let name = part.split('`').nth(1).unwrap();
            names.push(name.split('{').next().unwrap().to_string());
        }
    }
    names.sort();
    names
}

fn sorted(names: &[&[&str]]) -> Vec<String> {
    let mut v: Vec<String> = names
        .iter()
        .flat_map(|n| n.iter().map(|s| s.to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn every_module_docs_state_table_names_the_real_states() {
    let cases: &[(&str, &str, Vec<String>)] = &[
        (
            include_str!("../src/mechanisms/locks/ttas.rs"),
            "//! | state |",
            sorted(&[ttas::Lock::NAMES, ttas::Unlock::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/locks/ticket.rs"),
            "//! | state |",
            sorted(&[ticket::Lock::NAMES, ticket::Unlock::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/locks/futex_mutex.rs"),
            "# Lock states",
            sorted(&[futex_mutex::Lock::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/locks/futex_mutex.rs"),
            "# Unlock states",
            sorted(&[futex_mutex::Unlock::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/herd/futex_herd.rs"),
            "# Worker states",
            sorted(&[futex_herd::Worker::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/herd/futex_herd.rs"),
            "# Producer states",
            sorted(&[futex_herd::Producer::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/herd/condvar_herd.rs"),
            "# Worker states",
            sorted(&[condvar_herd::Worker::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/herd/condvar_herd.rs"),
            "# Producer states",
            sorted(&[condvar_herd::Producer::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/herd/accept_worker.rs"),
            "//! | state |",
            sorted(&[accept_worker::Worker::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/accept/blocking_worker.rs"),
            "//! | state |",
            sorted(&[blocking_worker::Worker::NAMES]),
        ),
        (
            include_str!("../src/mechanisms/accept/event_worker.rs"),
            "//! | state |",
            sorted(&[event_worker::Step::NAMES]),
        ),
    ];
    for (src, section, real) in cases {
        assert_eq!(&doc_states(src, section), real, "{section}");
    }
}

#[test]
fn the_lock_workers_straight_rounds_run_every_table_straight() {
    // LockWorker::lock_run/unlock_run run each lock's own table (no stepping through exec): the
    // ops and the end state match the stepped worker for every kind
    for lock in LockKind::ALL {
        for seed in 0..30 {
            let p = LockParams {
                lock,
                rounds: 2,
                cpus: 2,
                spin: 4,
                yield_after: 2,
                ..LockParams::default()
            };
            let mut straight = LockWorker::new(&p, 0);
            let mut rec = Recorder::new(seed, 50);
            rec.draw_values_from(&[0, 1, 2]);
            let out = (|| {
                while straight.phase() != Phase::Done {
                    straight.lock_run(&mut rec)?;
                    straight.step_on(&mut rec)?;
                    straight.unlock_run(&mut rec)?;
                }
                Ok::<(), ()>(())
            })();
            let mut stepped = LockWorker::new(&p, 0);
            for (&op, &r) in rec.ops().iter().zip(rec.results()) {
                assert_eq!(stepped.next_op(), op, "{lock:?} seed {seed}");
                let line = stepped.line() as usize;
                assert!(line >= 1 && line <= stepped.listing().len());
                stepped.complete(r);
            }
            assert_eq!(stepped, straight, "{lock:?} seed {seed}: {out:?}");
        }
    }
}
