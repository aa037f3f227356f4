//! The simulated platform's cost model: how much simulated time each step takes.
//!
//! Every default is a round figure inside the range that public measurements give for a current
//! x86-64 server; the simulation is meant to show orders of magnitude and ratios, not to predict a
//! particular machine. Each step's cost is then scaled by a seeded jitter factor (default ±25%) so
//! that interleavings vary with the seed, as they do on real hardware.
//!
//! | knob | default | where the figure comes from |
//! |---|---|---|
//! | `plain_ns` | 1 | an L1-hit load or store, about 4 cycles (Intel 64 and IA-32 Optimization Reference Manual, load latency tables) |
//! | `atomic_ns` | 15 | an uncontended `lock cmpxchg` / `lock xadd`, 15-25 cycles on Skylake-class cores (Agner Fog, instruction tables); the issue's "CAS about 10-20 ns" |
//! | `pause_ns` | 40 | `pause` is about 140 cycles from Skylake on (Intel Optimization Manual, §2.5.4 "Pause Latency in Skylake Microarchitecture") |
//! | `syscall_ns` | 200 | a `futex(2)` call that does not sleep, 150-250 ns with mitigations on (measured with `perf bench` style loops) |
//! | `kernel_step_ns` | 60 | one line of kernel code under a spinlock in the accept path (a few dozen instructions) |
//! | `wake_entry_ns` | 80 | one entry of `__wake_up_common`, plus `try_to_wake_up` when it wakes someone |
//! | `context_switch_ns` | 1500 | a thread-to-thread switch, 1-2 µs including cache effects (Tsuna Sigoure, "How long does it take to make a context switch?", 2010) |
//! | `cross_cpu_wake_ns` | 5000 | an IPI plus an idle CPU leaving a shallow C-state, several µs (`schbench` wakeup latencies; Intel C-state exit latencies in `intel_idle`) |
//! | `yield_ns` | 300 | `sched_yield` with nothing else to run |
//! | `time_slice_ns` | 3,000,000 | CFS's `sched_min_granularity` order of magnitude (0.75-3 ms depending on CPU count) |
//! | `coherence_miss_ns` | 0 (off) | a cache line moved from another core's cache: 20-115 ns one way on current x86 and Arm servers (nviennot/core-to-core-latency, README's "Single socket results": CAS ping-pong, median 48 ns on a Xeon Gold 6242, 68 ns on a Ryzen 9 7950X, 115 ns on an EPYC 7773X); 36 ns on the 2-vCPU AMD EPYC guest the benches ran on (a one-line store/load ping-pong, 2,000,000 round trips). Off by default, so that every scenario keeps its figures; a mechanism that compares itself with native runs turns it on (Go's G/M/P: `mechanisms::gmp::COHERENCE_MISS_NS`) |
//! | `wake_ipi_ns` | 0 (off) | what a wake onto an idle CPU costs the waker, inside its call: the inter-processor interrupt that gets the CPU out of idle. A few hundred ns on bare metal (an x2APIC write); on a virtual machine the IPI exits to the host: 6.5-8 µs median on the 2-vCPU AMD EPYC guest the benches ran on (Linux 6.18.44, 2026-12-06: a `futex_wake` that wakes a thread asleep 100 µs, less one that wakes nobody, 0.4 µs), and visible in `herdlab bench gmp --trace` as the gap between an `unpark` and its `notify 1`. Off by default, so that every scenario keeps its figures; `herdlab bench gmp --compare-sim` measures and sets it |
//! | `timer_slack_ns` | 0 (off) | how long after its deadline a timed sleep ends: Linux lets a normal thread's timer fire anywhere up to its slack after the deadline, so that wakeups batch, and a CPU with no other timer due fires it at the end of that range. The default slack is 50 µs (`prctl(PR_GET_TIMERSLACK)`, `man 2 prctl`; realtime threads have none), which turns Go's `usleep(3)` before it steals a `runnext` into 74 µs median on the 2-vCPU AMD EPYC guest (Linux 6.18.44, 2026-12-06, with the wake from idle). Off by default, so that every scenario keeps its figures; `herdlab bench gmp --compare-sim` reads the bench's own slack and sets it |
//!
//! `timer_slack_ns` is added to every timed sleep's deadline ([`Op::Sleep`](crate::op::Op::Sleep):
//! `sim/kernel/timer.rs`), always its whole length: the model has no other timers for the kernel
//! to batch the wakeup with. Only with the `timer-slack` cargo feature: without it the field does
//! not exist (JSON that gives it is read, the value ignored).
//!
//! `wake_ipi_ns` is charged to the thread whose step woke another onto an idle CPU (a futex wake,
//! a mutex's unlock, a semaphore's post: any wake a thread's step makes), once per thread so
//! woken, after the step's own cost; the woken thread's start is unchanged (`cross_cpu_wake_ns`
//! is counted from the call, as a measured wake-to-run time is). Only with the `wake-ipi` cargo
//! feature: without it the field does not exist (JSON that gives it is read, the value ignored).
//!
//! `coherence_miss_ns` is charged to a load or a read-modify-write that misses (a plain store's
//! miss waits in the store buffer, uncharged), and only when the simulator is built with
//! core's `coherence` cargo feature (the site's main bundle, which runs no mechanism that sets it,
//! is built without it, and then the field does not exist, so that its code stays as it was; JSON
//! that gives it is read and the value ignored): see `sim/kernel/mem.rs`, "Cache coherence",
//! for the states and the rule.

use serde::{Deserialize, Serialize};

/// Costs in simulated nanoseconds. See the module docs for where each default comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CostModel {
    /// A plain load or store.
    pub plain_ns: u64,
    /// An atomic read-modify-write (CAS, fetch-add).
    pub atomic_ns: u64,
    /// One `pause` instruction.
    pub pause_ns: u64,
    /// A system call that does not sleep.
    pub syscall_ns: u64,
    /// One step of the kernel's accept path.
    pub kernel_step_ns: u64,
    /// One entry visited by a wake walk.
    pub wake_entry_ns: u64,
    /// Switching a CPU from one thread to another.
    pub context_switch_ns: u64,
    /// Extra latency before a thread woken onto an idle CPU runs.
    pub cross_cpu_wake_ns: u64,
    /// `sched_yield`.
    pub yield_ns: u64,
    /// How long a thread runs before a waiting thread on its CPU preempts it.
    pub time_slice_ns: u64,
    /// Each step's cost is scaled by a seeded factor in `[100 - jitter, 100 + jitter]` percent.
    pub jitter_pct: u32,
    /// Extra cost of a memory access that misses in the coherence model: a load by a CPU without a
    /// valid copy of the line, a read-modify-write by a CPU that is not its sole holder (a plain
    /// store's miss is hidden by the store buffer; `sim/kernel/mem.rs`).
    /// 0 (the default) turns the model off. Absent from old JSON: 0. Only with the `coherence`
    /// cargo feature: without it the field does not exist (JSON that gives it is read, the value
    /// ignored), so that the site's main wasm, which has no mechanism that sets it, stays as it
    /// was.
    #[cfg(feature = "coherence")]
    #[serde(default)]
    pub coherence_miss_ns: u64,
    /// What the waker pays for each thread its step wakes onto an idle CPU (the IPI), beyond
    /// `wake_entry_ns`. 0 (the default) charges nothing. Absent from old JSON: 0. Only with the
    /// `wake-ipi` cargo feature (see the module docs).
    #[cfg(feature = "wake-ipi")]
    #[serde(default)]
    pub wake_ipi_ns: u64,
    /// How long after its deadline a timed sleep ends: Linux's timer slack. 0 (the default): at
    /// its deadline. Absent from old JSON: 0. Only with the `timer-slack` cargo feature (see the
    /// module docs).
    #[cfg(feature = "timer-slack")]
    #[serde(default)]
    pub timer_slack_ns: u64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            plain_ns: 1,
            atomic_ns: 15,
            pause_ns: 40,
            syscall_ns: 200,
            kernel_step_ns: 60,
            wake_entry_ns: 80,
            context_switch_ns: 1500,
            cross_cpu_wake_ns: 5000,
            yield_ns: 300,
            time_slice_ns: 3_000_000,
            jitter_pct: 25,
            #[cfg(feature = "coherence")]
            coherence_miss_ns: 0,
            #[cfg(feature = "wake-ipi")]
            wake_ipi_ns: 0,
            #[cfg(feature = "timer-slack")]
            timer_slack_ns: 0,
        }
    }
}

impl CostModel {
    /// How long a wake onto an idle CPU takes in all: `cross_cpu_wake_ns` and the switch into
    /// the woken thread (`context_switch_ns`), which the simulator adds to it.
    pub fn idle_wake_ns(&self) -> u64 {
        self.cross_cpu_wake_ns + self.context_switch_ns
    }

    /// How long a timed sleep of `ns` takes in the simulator (without jitter), from the call to
    /// the thread running again on its CPU, idle meanwhile: the call's entry (`syscall_ns`), the
    /// sleep, the timer slack (`timer_slack_ns`, with the `timer-slack` feature) and the wake
    /// onto the idle CPU ([`idle_wake_ns`](Self::idle_wake_ns)). `sim/kernel/timer.rs` checks
    /// it against a simulated sleep.
    pub fn timed_sleep_ns(&self, ns: u64) -> u64 {
        #[cfg(feature = "timer-slack")]
        let late = self.timer_slack_ns;
        #[cfg(not(feature = "timer-slack"))]
        let late = 0;
        self.syscall_ns + ns + late + self.idle_wake_ns()
    }

    /// The same model with a wake onto an idle CPU taking `total` ns in all, the switch included
    /// (a measured wake-to-run time; at least the switch).
    ///
    /// ```
    /// use herdlab_core::cost::CostModel;
    /// let c = CostModel::default().with_idle_wake_ns(21_000);
    /// assert_eq!((c.cross_cpu_wake_ns, c.idle_wake_ns()), (19_500, 21_000));
    /// assert_eq!(CostModel::default().idle_wake_ns(), 6_500);
    /// ```
    pub fn with_idle_wake_ns(self, total: u64) -> Self {
        CostModel {
            cross_cpu_wake_ns: total.saturating_sub(self.context_switch_ns),
            ..self
        }
    }

    /// Whether the simulator charges coherence misses: a non-zero `coherence_miss_ns`, with the
    /// `coherence` feature (always false without it).
    pub fn charges_coherence(&self) -> bool {
        #[cfg(feature = "coherence")]
        {
            self.coherence_miss_ns > 0
        }
        #[cfg(not(feature = "coherence"))]
        {
            false
        }
    }
}
