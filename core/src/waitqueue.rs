//! The Linux wait queue and its wake walk, `__wake_up_common`.
//!
//! A wait queue is an ordered list of entries, each naming a sleeper and carrying the
//! `WQ_FLAG_EXCLUSIVE` flag or not. This module models `include/linux/wait.h` and
//! `kernel/sched/wait.c` (Linux 4.13 to 6.x, where the entry type is `struct wait_queue_entry`):
//!
//! | enqueue call | flag | position | [`Enqueue`] |
//! |---|---|---|---|
//! | `add_wait_queue`, `prepare_to_wait` | cleared | head | [`Enqueue::NonExclusiveHead`] |
//! | `add_wait_queue_exclusive`, `prepare_to_wait_exclusive` | set | tail | [`Enqueue::ExclusiveTail`] |
//! | `__add_wait_queue_exclusive` (used by `ep_poll`) | set | head | [`Enqueue::ExclusiveHead`] |
//!
//! # The wake walk
//! [`WaitQueue::wake`] follows `__wake_up_common(nr_exclusive)`, run with the queue's lock held:
//! 1. Take the first entry; stop if there is none.
//! 2. Call its wake function. A negative return stops the walk.
//! 3. If the return is positive **and** the entry is exclusive, use up one unit of the budget; stop when
//!    the budget reaches zero. A budget of 0 at the start means "no limit" (`wake_up_all`).
//! 4. Move on to the next entry and repeat from 2.
//!
//! A wake function returning 0 (the sleeper was already running) never uses up the budget, so the walk
//! carries on to the next exclusive entry. With `autoremove` (`autoremove_wake_function`, the wake
//! function that `DEFINE_WAIT` gives an entry when it declares it; `prepare_to_wait` and
//! `prepare_to_wait_exclusive` only queue the entry they are handed and do not choose its wake
//! function) an entry is unlinked when its wake function returns positive, so the next wake reaches
//! the next sleeper.
//!
//! # Queueing an entry that is already queued
//! `prepare_to_wait` clears `WQ_FLAG_EXCLUSIVE` and `prepare_to_wait_exclusive` sets it *before*
//! they take the queue's lock and test `list_empty(&wq_entry->entry)`; only the insertion depends on
//! that test. So a second call for an entry that is still linked leaves it where it is but does change
//! its flag. [`WaitQueue::add`] models exactly that: no second entry, no move, the flag set as `how`
//! says. (`__add_wait_queue_exclusive`, used by `ep_poll` on a fresh entry, has no such test; the
//! model treats it the same way rather than linking one entry twice.)
//!
//! # Invariant
//! One walk with budget `k > 0` returns positive from at most `k` exclusive entries, and calls every
//! non-exclusive entry it passes (`__wake_up_common`). Each waiter is queued at most once
//! ([`WaitQueue::add`] adds no second entry for a waiter already queued, as `prepare_to_wait` tests
//! `list_empty(&wq_entry->entry)`).

use serde::{Deserialize, Serialize};

/// Where and how an entry is added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Enqueue {
    /// At the head, without `WQ_FLAG_EXCLUSIVE` (`prepare_to_wait`): woken by every walk that reaches it.
    NonExclusiveHead,
    /// At the tail, with `WQ_FLAG_EXCLUSIVE` (`prepare_to_wait_exclusive`): FIFO.
    ExclusiveTail,
    /// At the head, with `WQ_FLAG_EXCLUSIVE` (`__add_wait_queue_exclusive` in `ep_poll`): LIFO.
    ExclusiveHead,
}

impl Enqueue {
    /// Whether entries added this way carry `WQ_FLAG_EXCLUSIVE`.
    pub fn is_exclusive(self) -> bool {
        !matches!(self, Enqueue::NonExclusiveHead)
    }
}

/// One entry of a wait queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    /// The sleeper (a thread index).
    pub waiter: u16,
    /// `WQ_FLAG_EXCLUSIVE`.
    pub exclusive: bool,
}

/// What the walk did at one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WalkVisit {
    /// The entry's sleeper.
    pub waiter: u16,
    /// Whether the entry was exclusive.
    pub exclusive: bool,
    /// What its wake function returned: 1 woken, 0 already running, negative stops the walk.
    pub ret: i32,
    /// The `nr_exclusive` budget left after this entry (0 with an unlimited walk means unlimited).
    pub budget_left: u32,
}

/// Why a walk stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WalkEnd {
    /// It reached the end of the list.
    EndOfQueue,
    /// The exclusive budget ran out.
    BudgetSpent,
    /// A wake function returned a negative value.
    Aborted,
}

/// A wait queue: entries in order, head first.
///
/// Besides the list it keeps a bit per waiter below 64 saying whether that waiter has an entry, so
/// that [`WaitQueue::add`]'s "already queued?" test and a [`WaitQueue::remove`] of a waiter the
/// walk already unlinked cost no scan. The bits are a function of the list: equality, hashing and
/// `Debug` read the list alone.
#[derive(Clone, Default)]
pub struct WaitQueue {
    entries: Vec<Entry>,
    /// Bit `w` set: waiter `w` (< 64) has an entry. Waiters from 64 up are found by a scan.
    low: u64,
}

/// `waiter`'s bit in [`WaitQueue::low`] (none from 64 up).
#[inline]
fn bit(waiter: u16) -> u64 {
    if waiter < 64 {
        1 << waiter
    } else {
        0
    }
}

impl PartialEq for WaitQueue {
    fn eq(&self, o: &Self) -> bool {
        self.entries == o.entries
    }
}

impl Eq for WaitQueue {}

impl core::hash::Hash for WaitQueue {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.entries.hash(h);
    }
}

impl core::fmt::Debug for WaitQueue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WaitQueue")
            .field("entries", &self.entries)
            .finish()
    }
}

impl WaitQueue {
    /// An empty queue.
    pub fn new() -> Self {
        WaitQueue::default()
    }

    /// The entries, head first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no one is queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `waiter` has an entry.
    pub fn contains(&self, waiter: u16) -> bool {
        if waiter < 64 {
            self.low & bit(waiter) != 0
        } else {
            self.entries.iter().any(|e| e.waiter == waiter)
        }
    }

    /// Queue `waiter` as `how` says. If it is already queued, its entry stays where it is but takes
    /// `how`'s `WQ_FLAG_EXCLUSIVE` setting, as in `prepare_to_wait` / `prepare_to_wait_exclusive`
    /// (which set the flag before testing `list_empty`). Returns true when an entry was added.
    ///
    /// ```
    /// use herdlab_core::waitqueue::{Enqueue, WaitQueue};
    /// let mut q = WaitQueue::new();
    /// q.add(1, Enqueue::ExclusiveTail);
    /// q.add(2, Enqueue::NonExclusiveHead);
    /// q.add(3, Enqueue::ExclusiveHead);
    /// let order: Vec<u16> = q.entries().iter().map(|e| e.waiter).collect();
    /// assert_eq!(order, [3, 2, 1]);
    /// ```
    pub fn add(&mut self, waiter: u16, how: Enqueue) -> bool {
        // the bit answers for a waiter below 64 without the walk along the list (a herd's 64
        // sleepers queue themselves one after another: the walk would pass every one before)
        let queued = if waiter < 64 {
            self.low & bit(waiter) != 0
        } else {
            true
        };
        if queued {
            if let Some(e) = self.entries.iter_mut().find(|e| e.waiter == waiter) {
                e.exclusive = how.is_exclusive();
                return false;
            }
        }
        let entry = Entry {
            waiter,
            exclusive: how.is_exclusive(),
        };
        match how {
            Enqueue::ExclusiveTail => self.entries.push(entry),
            Enqueue::NonExclusiveHead | Enqueue::ExclusiveHead => self.entries.insert(0, entry),
        }
        self.low |= bit(waiter);
        true
    }

    /// Unlink `waiter`'s entry if it has one (`finish_wait`, `remove_wait_queue`). Returns true when
    /// an entry was removed.
    pub fn remove(&mut self, waiter: u16) -> bool {
        if waiter < 64 && self.low & bit(waiter) == 0 {
            return false;
        }
        match self.entries.iter().position(|e| e.waiter == waiter) {
            Some(i) => {
                self.entries.remove(i);
                self.low &= !bit(waiter);
                true
            }
            None => false,
        }
    }

    /// Run the wake walk with budget `nr_exclusive` (0: no limit). `wake_fn` is each entry's wake
    /// function, called with the sleeper; it returns 1 when it woke the sleeper, 0 when the sleeper was
    /// already running, negative to stop. With `autoremove`, entries whose wake function returned
    /// positive are unlinked. Every visit is appended to `visits`.
    ///
    /// ```
    /// use herdlab_core::waitqueue::{Enqueue, WaitQueue, WalkEnd};
    /// let mut q = WaitQueue::new();
    /// for w in 0..3 { q.add(w, Enqueue::ExclusiveTail); }
    /// q.add(9, Enqueue::NonExclusiveHead); // a poll() waiter
    /// let mut visits = Vec::new();
    /// let end = q.wake(1, true, &mut visits, |_| 1);
    /// let woken: Vec<u16> = visits.iter().map(|v| v.waiter).collect();
    /// assert_eq!(woken, [9, 0]); // the non-exclusive entry, then one exclusive one
    /// assert_eq!(end, WalkEnd::BudgetSpent);
    /// ```
    pub fn wake(
        &mut self,
        nr_exclusive: u32,
        autoremove: bool,
        visits: &mut Vec<WalkVisit>,
        wake_fn: impl FnMut(u16) -> i32,
    ) -> WalkEnd {
        self.wake_with(nr_exclusive, visits, wake_fn, |_| autoremove)
    }

    /// [`WaitQueue::wake`] with the unlink decision per entry: `autoremove(waiter)` says whether
    /// that entry's wake function is `autoremove_wake_function` (a task's wait) or one that leaves
    /// the entry linked (`ep_poll_callback`, whose entry stays on the socket until `EPOLL_CTL_DEL`).
    pub fn wake_with(
        &mut self,
        nr_exclusive: u32,
        visits: &mut Vec<WalkVisit>,
        mut wake_fn: impl FnMut(u16) -> i32,
        autoremove: impl Fn(u16) -> bool,
    ) -> WalkEnd {
        let unlimited = nr_exclusive == 0;
        let mut budget = nr_exclusive;
        let n = self.entries.len();
        // Compact in place: `kept` entries stay, in order; the walk's removals close up behind it.
        let mut kept = 0;
        let mut i = 0;
        let mut end = WalkEnd::EndOfQueue;
        while i < n {
            let entry = self.entries[i];
            i += 1;
            let ret = wake_fn(entry.waiter);
            if ret < 0 {
                self.entries[kept] = entry;
                kept += 1;
                visits.push(WalkVisit {
                    waiter: entry.waiter,
                    exclusive: entry.exclusive,
                    ret,
                    budget_left: budget,
                });
                end = WalkEnd::Aborted;
                break;
            }
            if ret > 0 && autoremove(entry.waiter) {
                self.low &= !bit(entry.waiter);
            } else {
                self.entries[kept] = entry;
                kept += 1;
            }
            let spent = ret > 0 && entry.exclusive && !unlimited;
            if spent {
                budget -= 1;
            }
            visits.push(WalkVisit {
                waiter: entry.waiter,
                exclusive: entry.exclusive,
                ret,
                budget_left: budget,
            });
            if spent && budget == 0 {
                end = WalkEnd::BudgetSpent;
                break;
            }
        }
        while i < n {
            self.entries[kept] = self.entries[i];
            kept += 1;
            i += 1;
        }
        self.entries.truncate(kept);
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn order(q: &WaitQueue) -> Vec<(u16, bool)> {
        q.entries()
            .iter()
            .map(|e| (e.waiter, e.exclusive))
            .collect()
    }

    #[test]
    fn positions_follow_the_enqueue_kind() {
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::ExclusiveTail);
        q.add(1, Enqueue::ExclusiveTail);
        q.add(2, Enqueue::NonExclusiveHead);
        q.add(3, Enqueue::ExclusiveHead);
        q.add(4, Enqueue::NonExclusiveHead);
        assert_eq!(
            order(&q),
            [(4, false), (3, true), (2, false), (0, true), (1, true)]
        );
        // already queued: no second entry and no move, but the flag follows the call
        // (prepare_to_wait clears WQ_FLAG_EXCLUSIVE before its list_empty test)
        assert!(!q.add(0, Enqueue::NonExclusiveHead));
        assert_eq!(
            order(&q),
            [(4, false), (3, true), (2, false), (0, false), (1, true)]
        );
        // and prepare_to_wait_exclusive sets it again, still in place
        assert!(!q.add(0, Enqueue::ExclusiveTail));
        assert!(!q.add(4, Enqueue::ExclusiveTail));
        assert_eq!(
            order(&q),
            [(4, true), (3, true), (2, false), (0, true), (1, true)]
        );
    }

    #[test]
    fn re_queueing_changes_what_the_walk_counts() {
        // Waiter 0 was queued exclusive at the tail, then prepare_to_wait runs for the same entry
        // before anyone woke it: it becomes non-exclusive in place, so a budget-1 walk passes it
        // (calling it without spending the budget) and spends the budget on waiter 1.
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::ExclusiveTail);
        q.add(1, Enqueue::ExclusiveTail);
        q.add(0, Enqueue::NonExclusiveHead);
        let mut v = Vec::new();
        let end = q.wake(1, true, &mut v, |_| 1);
        let woken: Vec<(u16, bool)> = v.iter().map(|x| (x.waiter, x.exclusive)).collect();
        assert_eq!(woken, [(0, false), (1, true)]);
        assert_eq!(end, WalkEnd::BudgetSpent);
        assert!(q.is_empty());
    }

    #[test]
    fn mixed_queue_budget_one_wakes_non_exclusive_then_first_exclusive() {
        // head: N5, X3, N2, X0, X1 ; budget 1
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::ExclusiveTail);
        q.add(1, Enqueue::ExclusiveTail);
        q.add(2, Enqueue::NonExclusiveHead);
        q.add(3, Enqueue::ExclusiveHead);
        q.add(5, Enqueue::NonExclusiveHead);
        let mut v = Vec::new();
        let end = q.wake(1, true, &mut v, |_| 1);
        let woken: Vec<u16> = v.iter().map(|x| x.waiter).collect();
        assert_eq!(woken, [5, 3]);
        assert_eq!(end, WalkEnd::BudgetSpent);
        assert_eq!(order(&q), [(2, false), (0, true), (1, true)]);
    }

    #[test]
    fn budget_two_passes_non_exclusive_entries_between_exclusive_ones() {
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::ExclusiveTail);
        q.add(1, Enqueue::ExclusiveTail);
        q.add(2, Enqueue::ExclusiveTail);
        q.add(7, Enqueue::NonExclusiveHead);
        let mut v = Vec::new();
        q.wake(2, true, &mut v, |_| 1);
        let woken: Vec<u16> = v.iter().map(|x| x.waiter).collect();
        assert_eq!(woken, [7, 0, 1]);
        assert_eq!(v.last().unwrap().budget_left, 0);
        assert_eq!(order(&q), [(2, true)]);
    }

    #[test]
    fn zero_return_does_not_use_the_budget() {
        let mut q = WaitQueue::new();
        for w in 0..4 {
            q.add(w, Enqueue::ExclusiveTail);
        }
        let mut v = Vec::new();
        // 0 and 1 are already running (return 0), 2 really wakes
        let end = q.wake(1, true, &mut v, |w| if w < 2 { 0 } else { 1 });
        let rets: Vec<(u16, i32)> = v.iter().map(|x| (x.waiter, x.ret)).collect();
        assert_eq!(rets, [(0, 0), (1, 0), (2, 1)]);
        assert_eq!(end, WalkEnd::BudgetSpent);
        // entries returning 0 are not unlinked
        assert_eq!(order(&q), [(0, true), (1, true), (3, true)]);
    }

    #[test]
    fn unlimited_walk_wakes_everyone_and_negative_aborts() {
        let mut q = WaitQueue::new();
        for w in 0..5 {
            q.add(w, Enqueue::ExclusiveTail);
        }
        let mut v = Vec::new();
        assert_eq!(q.wake(0, true, &mut v, |_| 1), WalkEnd::EndOfQueue);
        assert_eq!(v.len(), 5);
        assert!(q.is_empty());

        for w in 0..3 {
            q.add(w, Enqueue::NonExclusiveHead);
        }
        v.clear();
        let end = q.wake(0, true, &mut v, |w| if w == 1 { -1 } else { 1 });
        assert_eq!(end, WalkEnd::Aborted);
        assert_eq!(v.iter().map(|x| x.waiter).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(order(&q), [(1, false), (0, false)]);
    }

    #[test]
    fn without_autoremove_entries_stay() {
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::NonExclusiveHead);
        q.add(1, Enqueue::NonExclusiveHead);
        let mut v = Vec::new();
        q.wake(1, false, &mut v, |_| 1);
        assert_eq!(v.len(), 2);
        assert_eq!(q.len(), 2);
    }

    /// The bits say what a scan of the list says, through every kind of change, for waiters on
    /// both sides of 64.
    #[test]
    fn membership_bits_follow_the_list() {
        let mut rng = crate::rng::Rng::new(5);
        let kinds = [
            Enqueue::NonExclusiveHead,
            Enqueue::ExclusiveTail,
            Enqueue::ExclusiveHead,
        ];
        let mut q = WaitQueue::new();
        let mut v = Vec::new();
        for _ in 0..3000 {
            let w = [0, 1, 7, 62, 63, 64, 65, 200][rng.below(8) as usize];
            match rng.below(4) {
                0 | 1 => {
                    let was = q.entries().iter().any(|e| e.waiter == w);
                    assert_eq!(q.add(w, kinds[rng.below(3) as usize]), !was);
                }
                2 => {
                    let was = q.entries().iter().any(|e| e.waiter == w);
                    assert_eq!(q.remove(w), was);
                }
                _ => {
                    v.clear();
                    let r = rng.below(3) as i32;
                    q.wake_with(
                        rng.below(3) as u32,
                        &mut v,
                        |x| if x == 62 { r - 1 } else { 1 },
                        |x| x % 2 == 0,
                    );
                }
            }
            for x in [0u16, 1, 7, 62, 63, 64, 65, 200] {
                let scan = q.entries().iter().any(|e| e.waiter == x);
                assert_eq!(q.contains(x), scan, "{x} in {:?}", q.entries());
            }
            let mut fresh = WaitQueue::new();
            for e in q.entries().iter().rev() {
                fresh.add(
                    e.waiter,
                    if e.exclusive {
                        Enqueue::ExclusiveHead
                    } else {
                        Enqueue::NonExclusiveHead
                    },
                );
            }
            assert_eq!(fresh, q);
            assert_eq!(fresh.low, q.low);
        }
    }

    #[test]
    fn remove_unlinks_only_that_waiter() {
        let mut q = WaitQueue::new();
        q.add(0, Enqueue::ExclusiveTail);
        q.add(1, Enqueue::ExclusiveTail);
        assert!(q.remove(0));
        assert!(!q.remove(0));
        assert_eq!(order(&q), [(1, true)]);
    }
}
