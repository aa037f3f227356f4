// Browser tests for the nginx-shmtx lesson (lock simulations, the model checker in a Web Worker,
// lock comparisons, `herdlab check` links), against docs/site-contract.md.
//
// Run by `cargo xtask test` (which builds dist/, serves it on a free 127.0.0.1 port and sets
// HERDLAB_URL), or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/
//
// Drives the system chromium through playwright-core (no browser download). Every test gets its
// own browser context; stepping tests emulate prefers-reduced-motion so nothing autoplays.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  BASE,
  SCREENSHOTS,
  useBrowser,
  openPage as openBrowserPage,
  sel,
  waitForSim,
  waitForSteps,
} from './support.mjs';

const SLUG = 'nginx-shmtx';
const LESSON = `${BASE}/#/lesson/${SLUG}`;
// What `herdlab check shmtx --variant plain-load-store --threads 2 --rounds 1` prints.
const CHECK_LINK =
  '?mechanism=locks&lock=shmtx&variant=plain-load-store&threads=2&rounds=1&cpus=2&spin=4&semaphore=on&yield=4&cs=100&seed=1&schedule=0,1,0,1';
// The correct lock, 3 threads x 2 rounds, nginx's spin 2048: natively 336,237 states in about
// 0.3 s (a failed spin is one checker step, so every spin of 2 or more has these states).
const CHECK_PAGE = `${BASE}/#/check?mechanism=locks&lock=shmtx&variant=correct&threads=3&rounds=2&spin=2048`;

const TEST_TIMEOUT = 120_000;
const CHECK_WAIT = 90_000; // a whole search in the worker

useBrowser();

/** openPage of support.mjs, not echoing the console errors of missing files (the favicon). */
const openPage = (t, options) => openBrowserPage(t, { quietConsole: /favicon|status of 404/, ...options });

async function num(page, testid, sim) {
  const text = (await page.locator(sel(testid, sim)).first().textContent()).trim();
  const n = Number(text);
  assert.ok(Number.isFinite(n), `${testid} should be a plain number, got ${JSON.stringify(text)}`);
  return n;
}

/** One press of step-forward in a simulation; returns what the board shows after it. */
async function stepOnce(page, sim) {
  const before = await num(page, 'counter-steps', sim);
  await page.locator(sel('step-forward', sim)).click();
  await waitForSteps(page, sim, before + 1);
  return page.evaluate((sim) => {
    const root = document.querySelector(`[data-testid="sim-${sim}"]`);
    const q = (id) => root.querySelector(`[data-testid="${id}"]`);
    return {
      steps: Number(q('counter-steps').textContent.trim()),
      lock: q('lock-word')?.textContent.trim(),
      wait: q('wait-word')?.textContent.trim(),
      announce: q('announce').textContent.trim(),
      invariant: q('invariant-status').dataset.invariant,
      lanes: [...root.querySelectorAll('[data-testid^="lane-"]')].map((el) => el.dataset.state),
      active: [...root.querySelectorAll('[data-testid^="code-line-"].active')].map(
        (el) => `${el.dataset.testid}:${el.dataset.threads}`,
      ),
    };
  }, sim);
}

/** Runs a check block and waits for its result. */
async function runCheck(page, id) {
  const block = page.locator(`[data-testid="check-${id}"]`);
  await block.scrollIntoViewIfNeeded();
  const started = Date.now();
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  return { block, wallMs: Date.now() - started };
}

test('home lists both lessons and the link opens the lock lesson', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/`);
  await page.locator('a[data-testid="lesson-link-thundering-herd"]').waitFor();
  const link = page.locator(`a[data-testid="lesson-link-${SLUG}"]`);
  assert.match(await link.textContent(), /nginx's shared-memory lock/);
  const started = Date.now();
  await link.click();
  await waitForSim(page);
  await waitForSim(page, 'shmtx-intro');
  console.log(`render_ms_from_home_click: ${Date.now() - started}`);
  assert.match(page.url(), new RegExp(`#/lesson/${SLUG}`));
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0, 'no url-error on a clean link');
  assert.equal(await page.locator('[data-testid="block-error"]').count(), 0, 'every block of the lesson parses');
  assert.equal(await page.locator('[data-testid^="check-find-"]').count(), 3, 'three check blocks');
  assertNoPageErrors();
});

test('stepping the intro lock widget moves the counter, the lock word and the code lines', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  const sim = 'shmtx-intro';
  await waitForSim(page, sim);
  assert.equal(await num(page, 'counter-steps', sim), 0);
  assert.equal((await page.locator(sel('lock-word', sim)).textContent()).trim(), '0', 'the lock starts free');
  assert.equal(
    (await page.locator(sel('invariant-status', sim)).textContent()).trim(),
    'all invariants hold',
  );
  const seen = [];
  for (let i = 0; i < 12; i++) seen.push(await stepOnce(page, sim));
  assert.deepEqual(
    seen.map((s) => s.steps),
    [...Array(12).keys()].map((i) => i + 1),
    'counter-steps goes up by one per press',
  );
  assert.ok(
    seen.some((s) => s.lock !== '0'),
    `the lock word should change from 0: ${JSON.stringify(seen.map((s) => s.lock))}`,
  );
  const holder = seen.find((s) => s.lock !== '0');
  assert.ok(['1', '2', '3'].includes(holder.lock), `the lock word holds a pid, got ${holder.lock}`);
  assert.ok(new Set(seen.map((s) => s.active.join(' '))).size > 1, 'the active code lines change');
  for (const s of seen) {
    assert.match(s.announce, new RegExp(`^step ${s.steps}: thread \\d `), `announce: ${s.announce}`);
    assert.equal(s.invariant, '', 'no invariant breaks in the correct lock');
  }
  // step back restores the previous board
  await page.locator(sel('step-back', sim)).click();
  await waitForSteps(page, sim, 11);
  assert.equal((await page.locator(sel('lock-word', sim)).textContent()).trim(), seen[10].lock);

  // stepping on: someone announces itself in wait, and someone sleeps in sem_wait (spin 8)
  const sentences = [];
  for (let i = 0; i < 80; i++) {
    const s = await stepOnce(page, sim);
    sentences.push(s.announce);
    if (sentences.some((x) => /slept in sem_wait/.test(x))) break;
  }
  assert.ok(
    sentences.some((x) => /announced itself in wait \(wait is now 1\)/.test(x)),
    `an announce sentence: ${sentences.join(' | ')}`,
  );
  assert.ok(sentences.some((x) => /slept in sem_wait/.test(x)), 'a sleep sentence');
  assert.ok(
    (await page.locator(sel('sem-sleepers', sim)).textContent()).includes('thread'),
    'sem-sleepers names the sleeper',
  );
  assert.ok((await page.locator(`${sel('lane-0', sim)}, ${sel('lane-1', sim)}, ${sel('lane-2', sim)}`).evaluateAll(
    (els) => els.some((el) => el.dataset.state === 'sleeping'),
  )), 'a lane shows data-state=sleeping');
  assertNoPageErrors();
});

test('find the bug: announce-after-check gives a lost wakeup, and its replay ends in it', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await waitForSim(page);
  const { block, wallMs } = await runCheck(page, 'find-b1');
  const verdict = block.locator('[data-testid="check-verdict"]');
  assert.equal(await verdict.getAttribute('data-invariant'), 'lost-wakeup');
  assert.match(await verdict.textContent(), /lost-wakeup/);
  const states = Number((await block.locator('[data-testid="check-states"]').textContent()).trim());
  assert.ok(states > 1, `check-states: ${states}`);
  console.log(`check_ms_announce_after_check: ${(await block.locator('[data-testid="check-ms"]').textContent()).trim()} (wall ${wallMs})`);

  const replay = 'find-b1-replay';
  await waitForSim(page, replay);
  assert.equal(await num(page, 'counter-steps', replay), 0, 'the replay opens at the initial state');
  assert.equal(
    await page.locator(sel('invariant-status', replay)).getAttribute('data-invariant'),
    '',
    'no invariant is broken at the start',
  );
  const total = Number(await page.locator(sel('replay-progress', replay)).getAttribute('data-total'));
  assert.ok(total > 0, 'the replay knows its length');
  // the first steps one at a time
  for (let i = 1; i <= 3; i++) {
    const s = await stepOnce(page, replay);
    assert.equal(s.steps, i);
  }
  // then the rest with run-to-end
  await page.locator(sel('run-end', replay)).click();
  await waitForSteps(page, replay, total);
  const status = page.locator(sel('invariant-status', replay));
  assert.equal(await status.getAttribute('data-invariant'), 'lost-wakeup');
  assert.match(await status.textContent(), /lost-wakeup/);
  assert.match(await page.locator(sel('status', replay)).textContent(), /Stuck/);
  assert.ok(await page.locator(sel('step-forward', replay)).isDisabled(), 'the replay stops at its end');
  // one step back heals nothing yet shows the state before the exit; forward again breaks it
  await page.locator(sel('step-back', replay)).click();
  await waitForSteps(page, replay, total - 1);
  await page.locator(sel('step-forward', replay)).click();
  await waitForSteps(page, replay, total);
  assert.equal(await status.getAttribute('data-invariant'), 'lost-wakeup');
  assertNoPageErrors();
});

test('a herdlab check link opens the playground at the end of its schedule, broken', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${LESSON}${CHECK_LINK}`);
  await waitForSim(page);
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0, 'the link is valid');
  assert.equal(await page.locator('[data-testid="replay-error"]').count(), 0, 'the schedule replays');
  const status = page.locator(sel('invariant-status', 'main'));
  assert.equal(await status.getAttribute('data-invariant'), 'mutual-exclusion');
  assert.match(await status.textContent(), /mutual-exclusion/);
  assert.equal(await num(page, 'counter-steps', 'main'), 4);
  assert.equal(
    await page.locator(sel('lane-0', 'main')).getAttribute('data-marks'),
    'in-critical',
  );
  assert.equal(
    await page.locator(sel('lane-1', 'main')).getAttribute('data-marks'),
    'in-critical',
  );
  // the ordinary step/picks form of the same state
  const other = await openPage(t);
  await other.page.goto(
    `${LESSON}?mechanism=locks&lock=shmtx&variant=plain-load-store&threads=2&rounds=1&cpus=2&spin=4&seed=1&step=4&picks=0:t0,1:t1,2:t0,3:t1`,
  );
  await waitForSim(other.page);
  assert.equal(
    await other.page.locator(sel('invariant-status', 'main')).getAttribute('data-invariant'),
    'mutual-exclusion',
  );
  assertNoPageErrors();
  other.assertNoPageErrors();
});

test('a malformed lock link names the bad parameter and its allowed values, and starts from defaults', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${LESSON}?mechanism=locks&threads=99&lock=bogus&schedule=0,x`);
  const error = page.locator('[data-testid="url-error"]');
  await error.waitFor();
  const text = (await error.textContent()).trim();
  assert.match(text, /threads/, `url-error names threads: ${text}`);
  assert.match(text, /1-16/, `url-error gives the allowed threads: ${text}`);
  assert.match(text, /lock/, `url-error names lock: ${text}`);
  assert.match(text, /shmtx, ttas/, `url-error lists the locks: ${text}`);
  assert.match(text, /schedule/, `url-error names schedule: ${text}`);
  await waitForSim(page);
  // the playground's own values: 4 threads
  assert.equal(await page.locator(`[data-testid="sim-main"] [data-testid^="lane-"]`).count(), 4);
  // a schedule naming a thread that does not exist: a replay error, not a panic
  const bad = await openPage(t);
  await bad.page.goto(`${LESSON}?mechanism=locks&threads=2&schedule=0,7`);
  await bad.page.locator('[data-testid="replay-error"]').waitFor();
  assert.match(await bad.page.locator('[data-testid="replay-error"]').textContent(), /schedule/);
  await waitForSim(bad.page);
  assertNoPageErrors();
  bad.assertNoPageErrors();
});

test('the lock playground: form fields, variant hints, refused values, copy link', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await waitForSim(page);
  const variant = page.locator(sel('select-variant', 'main'));
  await variant.selectOption('no-wait-decrement');
  await page.waitForFunction(() => location.hash.includes('variant=no-wait-decrement'));
  assert.match(await page.locator(sel('hint-variant', 'main')).textContent(), /1\.7\.9/);
  const threads = page.locator(sel('input-threads', 'main'));
  await threads.fill('17');
  await page.locator(sel('error-threads', 'main')).waitFor();
  assert.match(await page.locator(sel('error-threads', 'main')).textContent(), /1-16/);
  await threads.fill('3');
  await page.locator(sel('error-threads', 'main')).waitFor({ state: 'detached' });
  await page.locator(sel('input-spin', 'main')).fill('8');
  assert.equal(await page.locator(`[data-testid="sim-main"] [data-testid^="lane-"]`).count(), 3);
  for (let i = 0; i < 25; i++) await stepOnce(page, 'main');
  const state = await page.evaluate(() => {
    const root = document.querySelector('[data-testid="sim-main"]');
    const q = (id) => root.querySelector(`[data-testid="${id}"]`).textContent.trim();
    return { steps: q('counter-steps'), lock: q('lock-word'), wait: q('wait-word'), spins: q('counter-spins') };
  });
  await page.locator(sel('copy-link', 'main')).click();
  const output = page.locator(sel('link-output', 'main'));
  await output.waitFor();
  const link = new URL(await output.inputValue(), `${BASE}/`).href;
  assert.match(link, /mechanism=locks/);
  assert.match(link, /step=25/);
  const other = await openPage(t);
  await other.page.goto(link);
  await waitForSim(other.page);
  await waitForSteps(other.page, 'main', 25);
  const reopened = await other.page.evaluate(() => {
    const root = document.querySelector('[data-testid="sim-main"]');
    const q = (id) => root.querySelector(`[data-testid="${id}"]`).textContent.trim();
    return { steps: q('counter-steps'), lock: q('lock-word'), wait: q('wait-word'), spins: q('counter-spins') };
  });
  assert.deepEqual(reopened, state, `state from ${link}`);
  assert.equal(await other.page.locator('[data-testid="url-error"]').count(), 0);
  // the keyboard drives the playground
  await other.page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await other.page.keyboard.press('ArrowRight');
  await waitForSteps(other.page, 'main', 26);
  assertNoPageErrors();
  other.assertNoPageErrors();
});

test('compare shmtx against ttas: counters side by side, acquisition bars, run to end', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await waitForSim(page);
  const cmp = page.locator('[data-testid="sim-cmp-shmtx-ttas"]');
  await cmp.scrollIntoViewIfNeeded();
  assert.equal(await cmp.locator('[data-testid="sim-cmp-shmtx-ttas-left"]').getAttribute('data-lock'), 'shmtx');
  assert.equal(await cmp.locator('[data-testid="sim-cmp-shmtx-ttas-right"]').getAttribute('data-lock'), 'ttas');
  await cmp.locator('[data-testid="run-end"]').click();
  await cmp.locator('[data-testid="run-end"]:disabled').waitFor();
  const n = async (id) => Number((await cmp.locator(`[data-testid="${id}"]`).textContent()).trim());
  assert.equal(await n('left-work_items'), 160);
  assert.equal(await n('right-work_items'), 160);
  const lspins = await n('left-spins');
  const rspins = await n('right-spins');
  assert.ok(rspins > lspins, `ttas pauses more than shmtx: ${lspins} vs ${rspins}`);
  assert.equal((await cmp.locator('[data-testid="diff-spins"]').textContent()).trim(), `+${rspins - lspins}`);
  assert.equal(await n('bar-left-0-acquired'), 20);
  assert.equal(await n('bar-right-7-acquired'), 20);
  assertNoPageErrors();
});

test('the correct lock, 3 threads x 2 rounds: the worker reports progress, finds nothing, and the page stays responsive', { timeout: 180_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(CHECK_PAGE);
  const block = page.locator('[data-testid="check-page"]');
  await block.locator('[data-testid="find-bug"]').waitFor();
  assert.equal(await page.locator('[data-testid="check-page-lesson"]').getAttribute('href'), '#/lesson/nginx-shmtx');
  // count animation frames while the worker searches: a long gap would mean a frozen page
  await page.evaluate(() => {
    window.__gaps = { max: 0, last: null, on: true };
    const tick = (now) => {
      const g = window.__gaps;
      if (g.last !== null) g.max = Math.max(g.max, now - g.last);
      g.last = now;
      if (g.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const started = Date.now();
  await block.locator('[data-testid="find-bug"]').click();
  const progress = new Set();
  while (Date.now() - started < CHECK_WAIT) {
    if ((await block.locator('[data-testid="check-result"]').count()) > 0) break;
    const p = block.locator('[data-testid="check-progress"]');
    // the progress line goes away when the result comes: it may vanish between count() and
    // getAttribute(), so read it with a short timeout (a 20 s wait for a line that is gone for good
    // failed this test once)
    if ((await p.count()) > 0) {
      const states = await p.getAttribute('data-states', { timeout: 200 }).catch(() => null);
      if (states !== null) progress.add(states);
    }
    await page.waitForTimeout(50);
  }
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: 1_000 });
  const wallMs = Date.now() - started;
  const maxGap = await page.evaluate(() => {
    window.__gaps.on = false;
    return window.__gaps.max;
  });
  const verdict = block.locator('[data-testid="check-verdict"]');
  assert.equal(await verdict.getAttribute('data-invariant'), '');
  assert.match(await verdict.textContent(), /no violation: the invariants hold in every reachable state/);
  const states = Number((await block.locator('[data-testid="check-states"]').textContent()).trim());
  assert.equal(states, 336237, 'the same state count as herdlab check');
  const checkMs = Number((await block.locator('[data-testid="check-ms"]').textContent()).trim());
  console.log(`check_ms: ${checkMs}`);
  console.log(`check_wall_ms: ${wallMs}`);
  console.log(`check_states_per_s: ${(await block.locator('[data-testid="check-rate"]').textContent()).trim()}`);
  console.log(`check_progress_counts: ${[...progress].join(' ')}`);
  console.log(`check_max_frame_gap_ms: ${Math.round(maxGap)}`);
  assert.ok(
    [...progress].some((p) => Number(p) >= 65536),
    `the worker reported a count on the way: ${[...progress].join(' ')}`,
  );
  assert.ok(maxGap < 1000, `animation frames kept coming during the search (max gap ${maxGap} ms)`);

  // cancel: a bigger search, stopped at once
  await page.goto(`${BASE}/#/check?mechanism=locks&lock=shmtx&threads=4&rounds=3&spin=4`);
  const big = page.locator('[data-testid="check-page"]');
  await big.locator('[data-testid="find-bug"]').click();
  await big.locator('[data-testid="check-cancel"]:enabled').waitFor();
  await big.locator('[data-testid="check-cancel"]').click();
  await big.locator('[data-testid="check-progress"]').filter({ hasText: 'cancelled' }).waitFor();
  assert.ok(await big.locator('[data-testid="find-bug"]').isEnabled(), 'a new search can start');
  assert.equal(await big.locator('[data-testid="check-result"]').count(), 0);
  assertNoPageErrors();
});

test('screenshot of the lock lesson with a counterexample loaded', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await waitForSim(page);
  const { block } = await runCheck(page, 'find-b1');
  await page.locator(sel('run-end', 'find-b1-replay')).click();
  await page.waitForSelector(`${sel('invariant-status', 'find-b1-replay')}[data-invariant="lost-wakeup"]`);
  await block.scrollIntoViewIfNeeded();
  await mkdir(SCREENSHOTS, { recursive: true });
  await block.screenshot({ path: path.join(SCREENSHOTS, 'locks.png') });
  assertNoPageErrors();
});
