// Browser tests for "find the bug" on the thundering-herd lesson (a herdlab-check block with
// mechanism=herd), against docs/site-contract.md.
//
// Run by `cargo xtask test` (which builds dist/, serves it on a free 127.0.0.1 port and sets
// HERDLAB_URL), or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/
//
// The checker runs core's herd::invariants::check in the Web Worker; its shortest counterexample
// must be the one `herdlab check herd --variant broken-sleeper` prints natively (9 steps), and the
// herd widget it loads must step from step 0 to a lost wakeup.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage, sel } from './support.mjs';

const SLUG = 'thundering-herd';
const LESSON = `${BASE}/#/lesson/${SLUG}`;
const BLOCK = 'find-lost-wakeup';
const REPLAY = `${BLOCK}-replay`;
// as `herdlab check herd --variant broken-sleeper` prints it (workers=2 connections=2 exclusive)
const NATIVE_PICKS = '0:t0,1:t0,2:t1,3:t1,4:n,5:t0,6:t0,7:t1,8:t1';
const NATIVE_QUERY =
  'mechanism=herd&workers=2&cpus=2&mode=exclusive&arrival=on-demand&burst=4&rate=10000&connections=2&service=5000&variant=broken-sleeper&primitive=accept&seed=1';

const TEST_TIMEOUT = 120_000;
const CHECK_WAIT = 60_000;

useBrowser();

async function num(page, testid, sim) {
  const text = await page.locator(sel(testid, sim)).textContent();
  const n = Number(text.trim());
  assert.ok(Number.isInteger(n), `${testid} should be a plain number, got ${JSON.stringify(text)}`);
  return n;
}

test('find the bug: the broken sleeper loses a wakeup, and the herd replay steps to it', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(LESSON);
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="counter-steps"]');
  assert.equal(await page.locator('[data-testid="block-error"]').count(), 0, 'every block of the lesson parses');
  const block = page.locator(`[data-testid="check-${BLOCK}"]`);
  await block.scrollIntoViewIfNeeded();
  assert.match(await block.textContent(), /Invariants: lost-wakeup, conservation, deadlock/);

  const started = Date.now();
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  const wallMs = Date.now() - started;
  assert.equal(await block.locator('[data-testid="check-error"]').count(), 0);
  const verdict = block.locator('[data-testid="check-verdict"]');
  assert.equal(await verdict.getAttribute('data-invariant'), 'lost-wakeup');
  assert.match(await verdict.textContent(), /lost-wakeup/);
  assert.match(await verdict.textContent(), /shortest schedule: 9 checker steps/);
  for (const id of ['check-states', 'check-transitions', 'check-depth', 'check-ms']) {
    const v = Number((await block.locator(`[data-testid="${id}"]`).textContent()).trim());
    assert.ok(Number.isFinite(v) && v >= 0, `${id}: ${v}`);
  }
  const states = Number((await block.locator('[data-testid="check-states"]').textContent()).trim());
  assert.ok(states > 1, `check-states: ${states}`);
  console.log(`check_herd_states: ${states}, ms: ${(await block.locator('[data-testid="check-ms"]').textContent()).trim()} (wall ${wallMs})`);

  // the same counterexample as `herdlab check herd`, as picks, with the same link
  assert.equal((await block.locator('[data-testid="check-schedule"]').textContent()).trim(), NATIVE_PICKS);
  assert.equal(
    await block.locator('[data-testid="check-link"]').getAttribute('href'),
    `#/lesson/${SLUG}?${NATIVE_QUERY}&follow=picks&step=9&picks=${NATIVE_PICKS}`,
  );

  // the herd widget, at step 0, steps forward to the lost wakeup
  await page.waitForSelector(sel('counter-steps', REPLAY));
  assert.equal(await num(page, 'counter-steps', REPLAY), 0, 'the replay opens at step 0');
  assert.equal(await num(page, 'counter-lost_wakeups', REPLAY), 0);
  const progress = page.locator(sel('replay-progress', REPLAY));
  assert.equal(await progress.getAttribute('data-total'), '9');
  assert.equal(await page.locator(sel('play', REPLAY)).getAttribute('aria-pressed'), 'false', 'it does not autoplay');
  for (let i = 1; i <= 9; i++) {
    await page.locator(sel('step-forward', REPLAY)).click();
    await page.waitForFunction(
      ([sim, want]) =>
        Number(
          document.querySelector(`[data-testid="sim-${sim}"] [data-testid="counter-steps"]`)?.textContent.trim(),
        ) === want,
      [REPLAY, i],
    );
    if (i < 9) assert.equal(await num(page, 'counter-lost_wakeups', REPLAY), 0, `no lost wakeup yet at step ${i}`);
  }
  assert.ok((await num(page, 'counter-lost_wakeups', REPLAY)) > 0, 'the last step loses a wakeup');
  assert.match(await page.locator(sel('lost-wakeups', REPLAY)).textContent(), /First lost wakeup at step 9/);
  assert.equal(await progress.getAttribute('data-position'), '9');
  assert.match(await progress.textContent(), /replayed: step 9 of 9, and a wakeup is lost/);
  assert.match(await page.locator(sel('announce', REPLAY)).textContent(), /last step of the counterexample/);
  assert.ok(await page.locator(sel('step-forward', REPLAY)).isDisabled(), 'the replay stops at its end');
  const lanes = await page.locator(`[data-testid="sim-${REPLAY}"] [data-testid^="lane-"]`).evaluateAll((els) =>
    els.map((el) => el.dataset.state),
  );
  assert.deepEqual(lanes, ['sleeping', 'sleeping'], 'both workers sleep');

  // step back leaves it; the playground link opens the same state
  await page.locator(sel('step-back', REPLAY)).click();
  await page.waitForFunction(
    (sim) => document.querySelector(`[data-testid="sim-${sim}"] [data-testid="counter-steps"]`)?.textContent.trim() === '8',
    REPLAY,
  );
  assert.equal(await num(page, 'counter-lost_wakeups', REPLAY), 0);
  await block.locator('[data-testid="check-link"]').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]')?.textContent.trim() === '9',
  );
  assert.ok((await num(page, 'counter-lost_wakeups', 'main')) > 0, 'the playground opens at the lost wakeup');
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0);
  // it follows the counterexample: back to step 3, then forward retraces it (not the default
  // scheduler) to the lost wakeup, and stops there
  const main = sel('replay-progress', 'main');
  assert.match(await page.locator(main).textContent(), /replayed: step 9 of 9, and a wakeup is lost/);
  for (let i = 8; i >= 3; i--) {
    await page.locator(sel('step-back', 'main')).click();
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]')?.textContent.trim() === String(want),
      i,
    );
  }
  assert.equal(await num(page, 'counter-lost_wakeups', 'main'), 0);
  assert.equal(await page.locator(main).getAttribute('data-on-script'), 'true');
  for (let i = 4; i <= 9; i++) {
    await page.locator(sel('step-forward', 'main')).click();
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]')?.textContent.trim() === String(want),
      i,
    );
  }
  assert.ok((await num(page, 'counter-lost_wakeups', 'main')) > 0, 'stepping forward retraces the counterexample');
  assert.ok(await page.locator(sel('step-forward', 'main')).isDisabled(), 'and stops at its end');
  // the address keeps following it
  assert.match(await page.evaluate(() => location.hash), new RegExp(`&follow=picks&step=9&picks=${NATIVE_PICKS}$`));
  assertNoPageErrors();
});

test('a herd check page refuses a herd too big for the browser, and says so', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/check?mechanism=herd&workers=6&connections=1&variant=correct`);
  const block = page.locator('[data-testid="check-page"]');
  await block.locator('[data-testid="find-bug"]').waitFor();
  // the footer links the lesson of the mechanism checked
  const lesson = page.locator('[data-testid="check-page-lesson"]');
  assert.equal(await lesson.getAttribute('href'), '#/lesson/thundering-herd');
  assert.equal(await lesson.textContent(), '← the lesson: The thundering herd');
  const err = block.locator('[data-testid="block-error"]');
  assert.match(await err.textContent(), /workers: 6 is too many for the checker in the browser, which takes at most 4/);
  // it checks the capped scenario: 4 workers, correct, which holds
  await block.locator('[data-testid="find-bug"]').click();
  await block.locator('[data-testid="check-result"]').waitFor({ timeout: CHECK_WAIT });
  assert.equal(await block.locator('[data-testid="check-verdict"]').getAttribute('data-invariant'), '');
  assert.equal(await block.locator('[data-testid="check-result"]').getAttribute('data-complete'), 'true');
  assertNoPageErrors();
});
