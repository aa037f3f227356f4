// Browser tests for the accept-strategy widgets (lessons epoll-herd and nginx-accept-mutex),
// against docs/site-contract.md ("Accept strategies"). They depend only on the block ids the
// contract fixes and on scenarios given in the address, never on the lessons' prose or on the
// values inside their blocks.
//
// Run by `cargo xtask test` (which builds dist/, serves it on a free 127.0.0.1 port and sets
// HERDLAB_URL), or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/
//
// Every test gets its own browser context, with prefers-reduced-motion so nothing autoplays.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage as openBrowserPage, sel, waitForSim, waitForSteps } from './support.mjs';

const EPOLL = `${BASE}/#/lesson/epoll-herd`;
const MUTEX = `${BASE}/#/lesson/nginx-accept-mutex`;
// One connection, four workers, on-demand arrival: the epoll herd at its smallest.
const ONE_CONN = 'mechanism=accept&workers=4&cpus=2&connections=1&arrival=on-demand&seed=1';

const TEST_TIMEOUT = 90_000;

useBrowser();

/** openPage of support.mjs, not echoing the console errors of missing files (the favicon). */
const openPage = (t, options) => openBrowserPage(t, { quietConsole: /favicon|status of 404/, ...options });

async function num(page, testid, sim) {
  const text = (await page.locator(sel(testid, sim)).first().textContent()).trim();
  const n = Number(text);
  assert.ok(Number.isFinite(n), `${testid} should be a plain number, got ${JSON.stringify(text)}`);
  return n;
}

/** Counters, lane states, code lines and the kernel objects of simulation `sim`, in one go. */
function board(page, sim = 'main') {
  return page.evaluate((sim) => {
    const root = document.querySelector(`[data-testid="sim-${sim}"]`);
    const all = (prefix) => [...root.querySelectorAll(`[data-testid^="${prefix}"]`)];
    const counters = {};
    for (const el of all('counter-')) counters[el.dataset.testid.slice(8)] = el.textContent.trim();
    return {
      counters,
      lanes: all('lane-').map((el) => `${el.dataset.testid}=${el.dataset.state}:${el.dataset.marks}`),
      active: all('code-line-')
        .filter((el) => el.classList.contains('active'))
        .map((el) => `${el.dataset.testid}:${el.dataset.threads}`),
      epolls: all('epoll-').map((el) => `${el.dataset.ready}|${el.dataset.sleepers}|${el.dataset.listener}`),
      listeners: all('listener-').map((el) => `${el.dataset.testid}:${el.dataset.waiter ?? el.dataset.queued}`),
      bars: all('bar-').map((el) => el.textContent.trim()),
    };
  }, sim);
}

async function stepOnce(page, sim = 'main') {
  const before = await num(page, 'counter-steps', sim);
  await page.locator(sel('step-forward', sim)).click();
  await waitForSteps(page, sim, before + 1);
}

async function runToEnd(page, sim = 'main') {
  await page.locator(sel('run-end', sim)).click();
  await page.waitForFunction(
    (sim) => document.querySelector(`[data-testid="sim-${sim}"] [data-testid="run-end"]`)?.disabled,
    sim,
  );
}

test('the epoll-herd lesson renders its accept playground, intro and compare', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(EPOLL);
  await waitForSim(page);
  for (const id of ['epoll-intro', 'epoll-playground', 'compare-epoll']) {
    await page.waitForSelector(`[data-testid="sim-${id}"][data-mechanism="accept"]`);
  }
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0);
  // the playground is the main simulation, with its form and its kernel objects
  const main = '[data-testid="sim-main"] [data-testid="sim-epoll-playground"]';
  await page.waitForSelector(main);
  for (const id of ['select-strategy', 'select-variant', 'input-workers', 'step-network', 'listener-0', 'epoll-0', 'jain-index']) {
    assert.equal(await page.locator(sel(id, 'main')).count(), 1, `${id} in the playground`);
  }
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('a[data-testid="lesson-link-epoll-herd"]');
  await page.waitForSelector('a[data-testid="lesson-link-nginx-accept-mutex"]');
  assertNoPageErrors();
});

test('one connection, four workers: the herd wastes 3 wakeups, EPOLLEXCLUSIVE none', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  // The simulator (core/examples/accept.rs with these keys) gives: the arrival's wake walk visits
  // the four epoll entries, all non-exclusive, and wakes the four sleepers; one accepts, and the
  // other three find nothing (two re-poll the drained socket inside epoll_wait and sleep again, one
  // got back to user space first and its accept4 says EAGAIN): wasted_wakeups 3, eagain 1, wakeups 5
  // (the four, then the client's close wakes the worker that owns the connection; its request was
  // written before the accept, so it is already there when the worker registers the connection).
  await page.goto(`${EPOLL}?${ONE_CONN}&strategy=herd`);
  await waitForSim(page);
  await page.waitForSelector(`${sel('lane-3', 'main')}`);
  let guard = 0;
  while (await page.locator(sel('step-forward', 'main')).isEnabled()) {
    await stepOnce(page);
    assert.ok(++guard < 200, 'the run ends within 200 steps');
  }
  assert.equal((await page.locator(sel('status', 'main')).textContent()).trim(), 'Finished');
  const end = await board(page);
  assert.equal(end.counters.wasted_wakeups, '3', JSON.stringify(end.counters));
  assert.equal(end.counters.eagain, '1');
  assert.equal(end.counters.wakeups, '5');
  assert.equal(end.counters.connections_accepted, '1');
  assert.equal(end.bars.reduce((a, b) => a + Number(b), 0), 1, 'one connection in the bars');
  assert.equal((await page.locator(sel('jain-index', 'main')).textContent()).trim(), '0.250');
  assert.ok(end.lanes.every((l) => l.includes('=sleeping')), `every worker sleeps at the end: ${end.lanes}`);

  // EPOLLEXCLUSIVE: the walk stops at the first epoll that has a sleeper; nobody else is woken.
  const ex = await openPage(t);
  await ex.page.goto(`${EPOLL}?${ONE_CONN}&strategy=exclusive`);
  await waitForSim(ex.page);
  await runToEnd(ex.page);
  const exEnd = await board(ex.page);
  assert.equal(exEnd.counters.wasted_wakeups, '0', JSON.stringify(exEnd.counters));
  assert.equal(exEnd.counters.connections_accepted, '1');
  const entries = await ex.page.$$eval('[data-testid="sim-main"] [data-testid^="listener-0-entry-"]', (els) =>
    els.map((el) => `${el.dataset.kind}:${el.dataset.exclusive}`),
  );
  assert.deepEqual(entries, ['epoll:true', 'epoll:true', 'epoll:true', 'epoll:true']);
  assertNoPageErrors();
  ex.assertNoPageErrors();
});

test('a bad value in the address shows url-error and the playground starts from its defaults', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(EPOLL);
  await waitForSim(page);
  const defaults = await board(page);

  const bad = await openPage(t);
  await bad.page.goto(`${EPOLL}?mechanism=accept&workers=999&strategy=bogus`);
  const error = bad.page.locator('[data-testid="url-error"]');
  await error.waitFor();
  const text = (await error.textContent()).trim();
  assert.match(text, /workers/, text);
  assert.match(text, /1-64/, text);
  assert.match(text, /strategy/, text);
  assert.match(text, /shared-epoll/, text);
  await waitForSim(bad.page);
  const started = await board(bad.page);
  assert.deepEqual(started.lanes, defaults.lanes, 'the default workers');
  assert.deepEqual(started.counters, defaults.counters, 'the default scenario');
  assert.deepEqual(started.epolls, defaults.epolls, 'the default strategy');

  // another mechanism's link is refused too
  const other = await openPage(t);
  await other.page.goto(`${EPOLL}?mechanism=locks`);
  await other.page.locator('[data-testid="url-error"]').waitFor();
  assert.match(await other.page.locator('[data-testid="url-error"]').textContent(), /mechanism/);
  assertNoPageErrors();
  bad.assertNoPageErrors();
  other.assertNoPageErrors();
});

test('step back returns to the previous counters and kernel state', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${EPOLL}?${ONE_CONN}&strategy=herd`);
  await waitForSim(page);
  const seen = [];
  for (let i = 0; i < 6; i++) {
    await stepOnce(page);
    seen.push(await board(page));
  }
  await page.locator(sel('step-back', 'main')).click();
  await waitForSteps(page, 'main', 5);
  assert.deepEqual(await board(page), seen[4]);
  // the address follows the playground: a reload opens the same state
  await page.waitForFunction(() => location.hash.includes('step=5'));
  const link = page.url();
  const again = await openPage(t);
  await again.page.goto(link);
  await waitForSim(again.page);
  await waitForSteps(again.page, 'main', 5);
  assert.deepEqual(await board(again.page), seen[4], `state from ${link}`);
  assertNoPageErrors();
  again.assertNoPageErrors();
});

test('the compare block runs every strategy on the same arrivals and shows their counters', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(EPOLL);
  const cmp = '[data-testid="sim-compare-epoll"]';
  await page.waitForSelector(`${cmp} [data-testid="run-end"]`);
  const sides = await page.$$eval(`${cmp} [data-strategy]`, (els) => els.map((el) => el.dataset.strategy));
  assert.ok(sides.length >= 2 && sides.length <= 4, `2-4 sides: ${sides}`);
  await page.locator(`${cmp} [data-testid="step-forward"]`).click();
  for (const s of sides) {
    await page.waitForFunction(
      ([cmp, s]) => document.querySelector(`${cmp} [data-testid="sim-compare-epoll-${s}"] [data-testid="counter-steps"]`)?.textContent.trim() === '1',
      [cmp, s],
    );
  }
  await page.locator(`${cmp} [data-testid="run-end"]`).click();
  await page.waitForFunction((cmp) => document.querySelector(`${cmp} [data-testid="run-end"]`)?.disabled, cmp);
  const read = (s, key) =>
    page.locator(`${cmp} [data-testid="cmp-${s}-${key}"]`).textContent().then((x) => Number(x.trim()));
  const accepted = [];
  for (const s of sides) {
    const inSide = `${cmp} [data-testid="sim-compare-epoll-${s}"]`;
    assert.equal((await page.locator(`${inSide} [data-testid="status"]`).textContent()).trim(), 'Finished', s);
    const wasted = Number((await page.locator(`${inSide} [data-testid="counter-wasted_wakeups"]`).textContent()).trim());
    assert.equal(await read(s, 'wasted_wakeups'), wasted, `the table and the ${s} side agree`);
    accepted.push(await read(s, 'connections_accepted'));
  }
  assert.ok(accepted.every((n) => n === accepted[0] && n > 0), `every side took every connection: ${accepted}`);
  if (sides.includes('herd') && sides.includes('exclusive')) {
    assert.ok((await read('herd', 'wasted_wakeups')) > 0, 'the herd wastes wakeups');
    assert.equal(await read('exclusive', 'wasted_wakeups'), 0, 'EPOLLEXCLUSIVE wastes none');
  }
  assertNoPageErrors();
});

test('the form refuses a bad value next to its field and the strategy selector switches the run', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${EPOLL}?${ONE_CONN}&strategy=herd`);
  await waitForSim(page);
  await page.locator(sel('input-workers', 'main')).fill('65');
  await page.locator(sel('error-workers', 'main')).waitFor();
  assert.match(await page.locator(sel('error-workers', 'main')).textContent(), /1-64/);
  assert.equal(await page.locator(sel('lane-4', 'main')).count(), 0, 'the last good value (4 workers) stays');
  await page.locator(sel('select-strategy', 'main')).selectOption('reuseport');
  await page.waitForSelector('[data-testid="sim-main"] [data-strategy="reuseport"]');
  await page.waitForSelector(sel('listener-3', 'main'));
  await page.waitForFunction(() => location.hash.includes('strategy=reuseport'));
  // the network says when it acts next (on-demand: once the workers are idle); the arrival's walk
  // names the socket whose queue it walked
  assert.match(await page.locator(sel('network-next', 'main')).textContent(), /once every worker is idle/);
  await page.locator(sel('next-wakeup', 'main')).click();
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="last-walk"][data-listener]');
  const l = await page.locator(sel('last-walk', 'main')).getAttribute('data-listener');
  assert.match(l, /^[0-3]$/);
  assert.match(await page.locator(sel('last-walk', 'main')).textContent(), new RegExp(`listener L${l}'s queue`));
  assertNoPageErrors();
});

test('the accept mutex: the lock word names the worker whose lane holds it', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${MUTEX}?${ONE_CONN}&strategy=accept-mutex`);
  await waitForSim(page);
  for (const id of ['mutex-intro', 'mutex-playground', 'compare-mutex']) {
    await page.waitForSelector(`[data-testid="sim-${id}"]`);
  }
  let pid = 0;
  for (let i = 0; i < 20 && pid === 0; i++) {
    await stepOnce(page);
    pid = await num(page, 'mutex-word', 'main');
  }
  assert.ok(pid > 0, 'a worker wins the trylock');
  const holders = await page.$$eval('[data-testid="sim-main"] [data-testid^="lane-"]', (els) =>
    els.filter((el) => el.dataset.marks.split(' ').includes('mutex-holder')).map((el) => el.dataset.testid),
  );
  assert.deepEqual(holders, [`lane-${pid - 1}`]);
  assert.equal(await page.locator(sel('mutex-word', 'main')).getAttribute('data-threads'), String(pid - 1));
  assertNoPageErrors();
});
