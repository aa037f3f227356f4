//! herdlab's native G is a Rust future: each action kind a poll can make (spawn, self-wake
//! yield, a wake of another G before and after its park, exit), 10,000 futures each run exactly
//! once on 1, 2 and 4 workers (from main and from the outside spawner), a foreign thread's wake
//! before the park is not lost, and one after the park readies the G through core's injector
//! (`injectglist` with no P) even when every G waits and every M sleeps in `stopm`. Exact counts
//! from the table's counters.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use herdlab_bench::mechanisms::gmp::native::{ring_for, run_tasks, GmpRun};
use herdlab_bench::mechanisms::gmp::task::{gosched, spawn, yield_now, Tasks};
use herdlab_core::mechanisms::gmp::{GmpParams, Workload};

fn params(workers: u32, gs: u32, external: bool) -> GmpParams {
    GmpParams {
        gomaxprocs: workers,
        threads: workers + 1,
        cpus: workers,
        workload: if external {
            Workload::SpawnMany
        } else {
            Workload::FanOut
        },
        goroutines: gs,
        work_ns: 1,
        ring: ring_for(workers, workers + 1, gs).expect("fits"),
        ..GmpParams::default()
    }
}

/// Run `main` as G1 with room for `gs` Gs.
fn run_main(
    workers: u32,
    gs: u32,
    main: impl Future<Output = ()> + Send + 'static,
) -> Result<GmpRun, String> {
    let tasks = Tasks::new(gs);
    tasks.root(main).expect("room for main");
    run_tasks(&params(workers, gs, false), &tasks).map_err(|e| e.to_string())
}

/// Pending on its first poll without arranging any wake (so only a token already on the G's
/// wait word, or a goready, runs the G again); ready on the next.
struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Waits for a flag; its waker is kept where a waker-of-the-flag finds it.
struct Flag {
    set: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Flag {
    fn new() -> Arc<Self> {
        Arc::new(Flag {
            set: AtomicBool::new(false),
            waker: Mutex::new(None),
        })
    }
    fn raise(&self) {
        self.set.store(true, SeqCst);
        if let Some(w) = self.waker.lock().unwrap().take() {
            w.wake();
        }
    }
    fn wait(self: &Arc<Self>) -> impl Future<Output = ()> + Send + 'static {
        let f = self.clone();
        std::future::poll_fn(move |cx| {
            *f.waker.lock().unwrap() = Some(cx.waker().clone());
            if f.set.load(SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

#[test]
fn a_future_that_returns_is_one_exit() {
    let ran = Arc::new(AtomicU32::new(0));
    let r2 = ran.clone();
    let r = run_main(1, 1, async move {
        r2.fetch_add(1, SeqCst);
    })
    .unwrap();
    assert_eq!(ran.load(SeqCst), 1);
    assert_eq!((r.finished, r.live), (1, 0));
    assert_eq!(r.counts.context_switches, 1);
    assert_eq!(
        (r.counts.yields, r.counts.gparks, r.counts.readies),
        (0, 0, 0)
    );
}

#[test]
fn each_spawn_is_a_newproc_and_each_child_runs_once() {
    let ran: Arc<Vec<AtomicU32>> = Arc::new((0..4).map(|_| AtomicU32::new(0)).collect());
    let r2 = ran.clone();
    let r = run_main(1, 4, async move {
        for i in 1..4 {
            let r3 = r2.clone();
            spawn(async move {
                r3[i].fetch_add(1, SeqCst);
            });
        }
        r2[0].fetch_add(1, SeqCst);
    })
    .unwrap();
    assert!(ran.iter().all(|n| n.load(SeqCst) == 1));
    // main and its 3 children, one execute each, nobody yields or parks
    assert_eq!((r.finished, r.counts.context_switches), (4, 4));
    assert_eq!((r.counts.yields, r.counts.gparks), (0, 0));
}

#[test]
fn a_self_wake_then_pending_is_a_goyield_and_gosched_goes_global() {
    // five yields of one task: each one more execute; a goyield (a future that wakes itself, as
    // tokio's yield_now) goes to the tail of the P's own ring and never passes the global
    // queue, a Gosched goes through it every time
    for (global, takes) in [(false, 0), (true, 5)] {
        let r = run_main(1, 1, async move {
            for _ in 0..5 {
                if global {
                    gosched().await;
                } else {
                    yield_now().await;
                }
            }
        })
        .unwrap();
        assert_eq!((r.counts.yields, r.counts.context_switches), (5, 6));
        assert_eq!(r.counts.global_queue_gets, takes, "gosched: {global}");
        assert_eq!(r.counts.gparks, 0);
    }
}

#[test]
fn goyield_and_gosched_mix_in_one_task() {
    // the flag is per poll: a Gosched does not make the next plain yield global
    let r = run_main(1, 1, async {
        for i in 0..6 {
            if i % 3 == 0 {
                gosched().await;
            } else {
                yield_now().await;
            }
        }
    })
    .unwrap();
    assert_eq!((r.counts.yields, r.counts.context_switches), (6, 7));
    assert_eq!(r.counts.global_queue_gets, 2);
}

#[test]
fn a_wake_of_a_parked_g_is_a_goready() {
    // main spawns G2 (runnext), then waits on the flag: pending, it parks; G2 raises the flag,
    // which wakes main from G2's poll: goready of a parked G
    for workers in [1, 2] {
        let flag = Flag::new();
        let (f1, f2) = (flag.clone(), flag.clone());
        let r = run_main(workers, 2, async move {
            spawn(async move { f2.raise() });
            f1.wait().await;
        })
        .unwrap();
        assert_eq!(r.finished, 2);
        if workers == 1 {
            assert_eq!((r.counts.gparks, r.counts.readies), (1, 1));
            assert_eq!(r.counts.context_switches, 3);
        }
        assert_eq!(r.counts.gparks, r.counts.readies);
    }
}

#[test]
fn a_wake_before_the_park_leaves_a_token_the_park_finds() {
    // one P: main spawns G2 and yields until G2 has run; G2 keeps its waker and yields; main
    // wakes G2's waker while G2 is runnable (not parked: the token); G2, run again, is pending
    // without arranging a wake, so only the token runs it on
    let slot: Arc<Mutex<Option<Waker>>> = Arc::new(Mutex::new(None));
    let polls = Arc::new(AtomicU32::new(0));
    let (s1, s2, p2) = (slot.clone(), slot.clone(), polls.clone());
    let r = run_main(1, 2, async move {
        spawn(async move {
            std::future::poll_fn(|cx| {
                *s2.lock().unwrap() = Some(cx.waker().clone());
                Poll::Ready(())
            })
            .await;
            yield_now().await;
            p2.fetch_add(1, SeqCst);
            PendingOnce(false).await;
            p2.fetch_add(1, SeqCst);
        });
        // until G2 has kept its waker (and so, on one P, yielded: runnable, not parked)
        let w = loop {
            if let Some(w) = s1.lock().unwrap().take() {
                break w;
            }
            yield_now().await;
        };
        w.wake();
    })
    .unwrap();
    assert_eq!(polls.load(SeqCst), 2);
    assert_eq!(r.finished, 2);
    // the token was taken at the park: no gopark, no goready
    assert_eq!((r.counts.gparks, r.counts.readies), (0, 0));
    assert!(r.counts.yields >= 2);
}

#[test]
fn ten_thousand_futures_each_run_exactly_once() {
    const N: u32 = 10_000;
    for workers in [1, 2, 4] {
        // from main (a worker's spawns: runnext and the ring)
        let ran: Arc<Vec<AtomicU32>> = Arc::new((0..N).map(|_| AtomicU32::new(0)).collect());
        let r2 = ran.clone();
        let r = run_main(workers, N, async move {
            for i in 1..N as usize {
                let r3 = r2.clone();
                spawn(async move {
                    r3[i].fetch_add(1, SeqCst);
                });
            }
            r2[0].fetch_add(1, SeqCst);
        })
        .unwrap();
        assert!(ran.iter().all(|n| n.load(SeqCst) == 1), "{workers} workers");
        assert_eq!((r.finished, r.live), (N, 0));
        assert_eq!(r.counts.context_switches, u64::from(N));
        // from the spawner outside every P (the global queue)
        let ran: Arc<Vec<AtomicU32>> = Arc::new((0..N).map(|_| AtomicU32::new(0)).collect());
        let tasks = Tasks::new(N);
        for i in 0..N as usize {
            let r3 = ran.clone();
            tasks.root(async move {
                r3[i].fetch_add(1, SeqCst);
            });
        }
        let r = run_tasks(&params(workers, N, true), &tasks).unwrap();
        assert!(ran.iter().all(|n| n.load(SeqCst) == 1), "{workers} workers");
        assert_eq!((r.finished, r.counts.context_switches), (N, u64::from(N)));
    }
}

#[test]
fn oneshot_ping_pong_pairs_finish() {
    for workers in [1, 2, 4] {
        let done = Arc::new(AtomicU32::new(0));
        let d = done.clone();
        let r = run_main(workers, 201, async move {
            for _ in 0..100 {
                let d = d.clone();
                spawn(async move {
                    let (tx1, rx1) = tokio::sync::oneshot::channel::<()>();
                    let (tx2, rx2) = tokio::sync::oneshot::channel::<()>();
                    spawn(async move {
                        rx1.await.unwrap();
                        tx2.send(()).unwrap();
                    });
                    tx1.send(()).unwrap();
                    rx2.await.unwrap();
                    d.fetch_add(1, SeqCst);
                });
            }
        })
        .unwrap();
        assert_eq!(done.load(SeqCst), 100);
        assert_eq!(r.finished, 201);
        assert_eq!(r.counts.gparks, r.counts.readies);
    }
}

#[test]
fn a_foreign_wake_before_the_park_is_not_lost() {
    // main hands its waker to a thread, which wakes it before main's poll returns: main's
    // park finds the token and main is polled again
    let polls = Arc::new(AtomicU32::new(0));
    let p = polls.clone();
    let r = run_main(1, 1, async move {
        let mut woken = false;
        std::future::poll_fn(move |cx| {
            p.fetch_add(1, SeqCst);
            if woken {
                return Poll::Ready(());
            }
            woken = true;
            let w = cx.waker().clone();
            std::thread::spawn(move || w.wake()).join().unwrap();
            Poll::Pending
        })
        .await
    })
    .unwrap();
    assert_eq!(polls.load(SeqCst), 2);
    assert_eq!(
        (r.counts.gparks, r.counts.readies, r.counts.yields),
        (0, 0, 0)
    );
}

#[test]
fn a_foreign_wake_after_the_park_is_delivered_by_a_running_g() {
    // G2 parks on a flag a foreign thread raises 20 ms later; main yields until G2 is done, and
    // its next poll after the wake readies G2 (the table's goready)
    for workers in [1, 2] {
        let flag = Flag::new();
        let finished = Arc::new(AtomicBool::new(false));
        let (f2, fin2, fin1) = (flag.clone(), finished.clone(), finished.clone());
        let r = run_main(workers, 2, async move {
            spawn(async move {
                let f3 = f2.clone();
                let t = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    f3.raise();
                });
                f2.wait().await;
                t.join().unwrap();
                fin2.store(true, SeqCst);
            });
            while !fin1.load(SeqCst) {
                yield_now().await;
            }
        })
        .unwrap();
        assert!(finished.load(SeqCst));
        assert_eq!(r.finished, 2);
        assert_eq!(r.counts.gparks, r.counts.readies);
    }
}

#[test]
fn a_oneshot_sent_from_a_sleeping_thread_runs_its_g_when_every_m_sleeps() {
    // main awaits a oneshot whose sender is a plain thread that sleeps first: main parks, its
    // M finds nothing and sleeps in stopm with the others; the thread's send wakes main's waker
    // outside every P: core's injector readies main (the global queue) and starts an M for the
    // idle P (one futex wake), and main runs to its end, once
    for workers in [1, 2, 4] {
        let ran = Arc::new(AtomicU32::new(0));
        let r2 = ran.clone();
        let r = run_main(workers, 1, async move {
            let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
            let t = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(30));
                tx.send(7).unwrap();
            });
            assert_eq!(rx.await.unwrap(), 7);
            t.join().unwrap();
            r2.fetch_add(1, SeqCst);
        })
        .unwrap_or_else(|e| panic!("{workers} workers: {e}"));
        assert_eq!(ran.load(SeqCst), 1, "{workers} workers");
        assert_eq!((r.finished, r.live), (1, 0), "{workers} workers");
        // parked once, readied once from outside, run twice
        assert_eq!(
            (r.counts.gparks, r.counts.readies),
            (1, 1),
            "{workers} workers"
        );
        assert_eq!(r.counts.context_switches, 2, "{workers} workers");
        // off the global queue, on an M the injector woke (the only wake: main spawns nothing)
        assert_eq!(r.counts.global_queue_gets, 1, "{workers} workers");
        assert_eq!(r.counts.futex_wakes, 1, "{workers} workers");
        assert!(r.counts.parks >= 1, "{workers} workers: main's M parked");
    }
}

#[test]
fn a_thousand_gs_each_woken_from_outside_run_exactly_once() {
    // main spawns 999 Gs, each awaiting its own oneshot, and hands the senders to 4 plain
    // threads that sleep, then send: the Gs park, the Ms sleep, and the senders' wakes (4
    // threads injecting at once, through sched.lock) run every G exactly once
    const N: u32 = 1_000;
    for workers in [1, 2, 4] {
        let ran: Arc<Vec<AtomicU32>> = Arc::new((0..N).map(|_| AtomicU32::new(0)).collect());
        let threads = Arc::new(Mutex::new(Vec::new()));
        let (r2, t2) = (ran.clone(), threads.clone());
        let r = run_main(workers, N, async move {
            let mut senders = Vec::new();
            for i in 1..N as usize {
                let (tx, rx) = tokio::sync::oneshot::channel::<usize>();
                senders.push((i, tx));
                let r3 = r2.clone();
                spawn(async move {
                    let i = rx.await.unwrap();
                    r3[i].fetch_add(1, SeqCst);
                });
            }
            let chunk = senders.len().div_ceil(4);
            let mut rest = senders;
            while !rest.is_empty() {
                let tail = rest.split_off(rest.len().min(chunk));
                let mine = std::mem::replace(&mut rest, tail);
                t2.lock().unwrap().push(std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    for (i, tx) in mine {
                        tx.send(i).unwrap();
                    }
                }));
            }
            r2[0].fetch_add(1, SeqCst);
        })
        .unwrap_or_else(|e| panic!("{workers} workers: {e}"));
        for t in threads.lock().unwrap().drain(..) {
            t.join().unwrap();
        }
        assert!(
            ran.iter().all(|n| n.load(SeqCst) == 1),
            "{workers} workers: every G exactly once"
        );
        assert_eq!((r.finished, r.live), (N, 0), "{workers} workers");
        // a wake that came before its G parked is a token (no park, no goready)
        assert_eq!(r.counts.gparks, r.counts.readies, "{workers} workers");
        assert!(r.counts.readies <= u64::from(N - 1), "{workers} workers");
        assert_eq!(
            r.counts.context_switches,
            u64::from(N) + r.counts.readies,
            "{workers} workers"
        );
    }
}

#[test]
fn cores_foreign_wake_workload_runs_on_real_threads() {
    // the model's own workload natively: the injector is one more thread of the run, sleeping
    // 200 µs in the kernel before each wake; every G parks once and is readied from outside
    use herdlab_bench::mechanisms::gmp::native::run;
    for workers in [1, 2, 4] {
        let p = GmpParams {
            workload: Workload::ForeignWake,
            net_ns: 200_000,
            ..params(workers, 8, false)
        };
        let r = run(&p, 1_000).unwrap_or_else(|e| panic!("{workers} workers: {}", e.0));
        assert_eq!((r.finished, r.live), (8, 0), "{workers} workers");
        assert_eq!(r.counts.gparks, r.counts.readies, "{workers} workers");
        assert_eq!(
            r.counts.context_switches,
            8 + r.counts.readies,
            "{workers} workers"
        );
    }
}

#[test]
fn the_bench_shapes_run_every_task_once_as_futures() {
    use herdlab_bench::mechanisms::gmp::bench::{params, run_herdlab, Runtime, Shape};
    for rt in [Runtime::Herdlab, Runtime::Herdlab2012] {
        for shape in Shape::ALL {
            for workers in [1, 2, 4] {
                let p = params(rt, shape, workers, 50).unwrap();
                let (tasks, yields) = shape.size(50);
                // run_herdlab refuses a run where a task's body ran twice or never
                let r = run_herdlab(&p, shape, 0).unwrap_or_else(|e| panic!("{p:?}: {}", e.0));
                let c = r.counts;
                assert_eq!((r.finished, r.live), (tasks, 0), "{p:?}");
                let due = if shape.yields() { yields } else { 0 };
                assert_eq!(c.yields, u64::from(tasks) * u64::from(due), "{p:?}");
                if rt == Runtime::Herdlab && shape == Shape::YieldMany {
                    // goyield keeps a G on its P's ring: each G takes the global queue once at
                    // most (the spawner's injection); Gosched's pass it at every yield
                    assert!(c.global_queue_gets <= u64::from(tasks), "{p:?} {c:?}");
                }
                if rt == Runtime::Herdlab && shape == Shape::GoschedMany {
                    assert!(c.global_queue_gets > u64::from(tasks), "{p:?} {c:?}");
                }
                assert_eq!(c.gparks, c.readies, "{p:?}");
                assert_eq!(c.context_switches, u64::from(tasks) + c.yields + c.readies);
                if rt == Runtime::Herdlab2012 {
                    assert_eq!(c.global_queue_gets, c.context_switches, "{p:?}");
                }
            }
        }
    }
}

#[test]
fn futures_that_block_in_a_syscall_get_their_ps_handed_off() {
    // `bench gmp --blocking`'s shape as futures: main and the 8 even tasks of 2..=16 block their
    // thread 1 ms in `syscall_sleep` (the table's entersyscall, nanosleep(2), exitsyscall); with
    // one P, sysmon retakes the P of a blocked M and hands it to a parked one, so the others
    // run meanwhile. Without the retake (the broken variant) nobody takes the P: no retake, no
    // hand-off. Every task runs once either way (run_herdlab refuses a task that did not).
    use herdlab_bench::mechanisms::gmp::blocking::{run_herdlab, TASKS};
    use herdlab_core::mechanisms::gmp::GmpVariant;
    for workers in [1, 2] {
        let r = run_herdlab(workers, GmpVariant::Correct).unwrap();
        assert_eq!((r.finished, r.live), (TASKS, 0));
        assert_eq!(r.counts.syscalls, 9, "{:?}", r.counts);
        // a G whose exitsyscall found no P went to the global queue and ran once more
        let exit0 = r.counts.syscalls - r.counts.syscall_oldp - r.counts.syscall_pidle;
        assert_eq!(r.counts.context_switches, u64::from(TASKS) + exit0);
        if workers == 1 {
            assert!(r.counts.retakes >= 1, "{:?}", r.counts);
            assert!(r.counts.handoffs >= 1, "{:?}", r.counts);
        }
        let n = run_herdlab(workers, GmpVariant::NoSyscallRetake).unwrap();
        assert_eq!((n.finished, n.counts.syscalls), (TASKS, 9));
        assert_eq!(
            (n.counts.retakes, n.counts.handoffs),
            (0, 0),
            "{:?}",
            n.counts
        );
    }
}

#[test]
fn syscall_sleep_outside_the_runtime_blocks_the_thread_and_is_ready() {
    use herdlab_bench::mechanisms::gmp::task::syscall_sleep;
    let mut f = std::pin::pin!(syscall_sleep(2_000_000));
    let w = Waker::noop();
    let t0 = std::time::Instant::now();
    assert_eq!(
        f.as_mut().poll(&mut Context::from_waker(w)),
        Poll::Ready(())
    );
    assert!(t0.elapsed() >= std::time::Duration::from_millis(2));
}

#[test]
fn a_future_locked_to_its_thread_runs_only_there_and_each_return_hands_the_p_over() {
    // `bench gmp --locked`'s shape as futures: with one task locked, each of its 200 Gosched
    // returns is one stoplockedm (its M hands the P off and sleeps) and one startlockedm (the M
    // that finds it hands its P over); run_tasks refuses a run where it ran on another thread
    use herdlab_bench::mechanisms::gmp::locked::{run_herdlab, YIELDS};
    for workers in [1, 2] {
        let r = run_herdlab(workers, 1).unwrap();
        let c = &r.counts;
        assert_eq!(
            (c.lockedm_parks, c.locked_handoffs, c.locks),
            (u64::from(YIELDS), u64::from(YIELDS), 1),
            "{c:?}"
        );
        // every run of it, the first and one per return, on its own M
        assert_eq!(r.locked_runs, u64::from(YIELDS) + 1);
        assert_eq!(c.locked_exits, 1, "its thread exits with it");
        let free = run_herdlab(workers, 0).unwrap();
        assert_eq!(
            (
                free.counts.lockedm_parks,
                free.counts.locked_handoffs,
                free.locked_runs
            ),
            (0, 0, 0)
        );
    }
}

#[test]
fn a_future_that_unlocks_runs_anywhere_after() {
    use herdlab_bench::mechanisms::gmp::locked::params;
    use herdlab_bench::mechanisms::gmp::task::{lock_os_thread, unlock_os_thread};
    // main spawns G2 (locks, 3 Gosched, unlocks, 3 Gosched) and G3 (6 Gosched); only G2's
    // returns while locked hand the P over
    let p = GmpParams {
        goroutines: 3,
        ..params(1, 1)
    };
    let gs = Tasks::new(3);
    gs.root(async {
        spawn(async {
            lock_os_thread();
            for _ in 0..3 {
                gosched().await;
            }
            unlock_os_thread();
            for _ in 0..3 {
                gosched().await;
            }
        });
        spawn(async {
            for _ in 0..6 {
                gosched().await;
            }
        });
    });
    let r = run_tasks(&p, &gs).unwrap();
    let c = &r.counts;
    assert_eq!((r.finished, c.yields), (3, 12));
    assert_eq!((c.locks, c.unlocks), (1, 1), "{c:?}");
    assert_eq!((c.lockedm_parks, c.locked_handoffs), (3, 3), "{c:?}");
    assert_eq!(c.locked_exits, 0, "it ended unlocked: its thread lives on");
}

#[test]
fn futures_that_read_the_network_park_on_the_netpoller_and_each_answer_runs_them_again() {
    // 4 tasks, each computing and reading its connection twice (its peer answers after 300 µs):
    // a read parks its G on the pollDesc unless the answer is already there, and a netpoll of an
    // M readies it; every park is ended by exactly one readying (run_tasks checks each G ran once
    // more per readying), and the run cannot end before its two answers in a row
    use herdlab_bench::mechanisms::gmp::netpoll::{self, params, READS, TASKS};
    use herdlab_bench::mechanisms::gmp::task::net_read;
    for workers in [1, 2] {
        let p = GmpParams {
            goroutines: 4,
            rounds: 2,
            net_ns: 300_000,
            ..params(workers)
        };
        let gs = Tasks::new(4);
        gs.root(async {
            for _ in 1..4 {
                spawn(async {
                    for _ in 0..2 {
                        net_read().await;
                    }
                });
            }
            for _ in 0..2 {
                net_read().await;
            }
        });
        let r = run_tasks(&p, &gs).unwrap();
        let c = &r.counts;
        assert_eq!(r.finished, 4);
        assert_eq!(c.netpoll_ready, c.netpoll_parks, "{c:?}");
        assert!(c.netpoll_parks <= 8, "{c:?}");
        assert!(c.netpoll_parks == 0 || c.netpoll_polls >= 1, "{c:?}");
        assert!(r.wall_ns >= 600_000, "{}", r.wall_ns);
        // the bench's shape: 64 tasks, 3 reads each
        let b = netpoll::run_herdlab(workers).unwrap();
        assert_eq!(b.finished, TASKS);
        assert_eq!(b.counts.netpoll_ready, b.counts.netpoll_parks);
        assert!(b.counts.netpoll_parks <= u64::from(TASKS * READS));
    }
}
