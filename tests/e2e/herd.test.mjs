// Browser tests for the thundering-herd lesson, against docs/site-contract.md.
//
// Run by `cargo xtask test` (which builds dist/, serves it on a free 127.0.0.1 port and sets
// HERDLAB_URL), or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/
//
// Drives the system chromium through playwright-core (no browser download). Every test gets its
// own browser context, so tests share no state; stepping tests emulate prefers-reduced-motion so
// nothing autoplays under them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  BASE,
  SCREENSHOTS,
  useBrowser,
  openPage,
  sel,
  waitForSim,
  waitForSteps as waitForSimSteps,
} from './support.mjs';

const SLUG = 'thundering-herd';
const LESSON = `${BASE}/#/lesson/${SLUG}`;
const PERF_QUERY = '?workers=64&cpus=4&mode=wake-all&arrival=poisson&rate=20000&connections=100000';

const TEST_TIMEOUT = 90_000;

useBrowser();

const inSim = (testid, sim = 'main') => sel(testid, sim);

/** Opens the lesson (optionally with a scenario query) and waits for the main simulation. */
async function openLesson(page, query = '') {
  await page.goto(`${LESSON}${query}`);
  await waitForSim(page);
}

async function steps(page) {
  const text = await page.locator(inSim('counter-steps')).textContent();
  const n = Number(text.trim());
  assert.ok(Number.isInteger(n), `counter-steps should be a plain number, got ${JSON.stringify(text)}`);
  return n;
}

/** Waits until the main simulation's step counter shows `n`. */
const waitForSteps = (page, n) => waitForSimSteps(page, 'main', n);

/** Counters, active code lines and lane states of a simulation, read in one go. */
async function snapshot(page, sim = 'main') {
  return page.evaluate((sim) => {
    const root = document.querySelector(`[data-testid="sim-${sim}"]`);
    const counters = {};
    for (const el of root.querySelectorAll('[data-testid^="counter-"]')) {
      counters[el.dataset.testid.slice('counter-'.length)] = el.textContent.trim();
    }
    const active = [...root.querySelectorAll('[data-testid^="code-line-"]')]
      .filter((el) => el.classList.contains('active'))
      .map((el) => `${el.dataset.testid.slice('code-line-'.length)}:${el.dataset.threads ?? ''}`);
    const lanes = [...root.querySelectorAll('[data-testid^="lane-"]')].map(
      (el) => `${el.dataset.testid}=${el.dataset.state}`,
    );
    return { counters, active, lanes };
  }, sim);
}

/** Makes sure the main simulation is not playing (so counters only move when we step). */
async function ensurePaused(page) {
  const play = page.locator(inSim('play'));
  if ((await play.count()) > 0 && (await play.getAttribute('aria-pressed')) === 'true') {
    await play.click();
    await page.waitForSelector(`${inSim('play')}[aria-pressed="false"]`);
  }
}

async function stepForward(page, times) {
  const seen = [];
  for (let i = 0; i < times; i++) {
    const before = await steps(page);
    await page.locator(inSim('step-forward')).click();
    await waitForSteps(page, before + 1);
    seen.push(await snapshot(page));
  }
  return seen;
}

/** Moves keyboard focus to the page body, out of any input or button. */
async function focusBody(page) {
  await page.evaluate(() => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    document.body.tabIndex = -1;
    document.body.focus();
  });
}

test('home lists the thundering-herd lesson and the link opens it', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/`);
  const link = page.locator(`a[data-testid="lesson-link-${SLUG}"]`);
  await link.waitFor();
  const started = Date.now();
  await link.click();
  await waitForSim(page);
  console.log(`render_ms_from_home_click: ${Date.now() - started}`);
  assert.match(page.url(), new RegExp(`#/lesson/${SLUG}`));
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0, 'no url-error on a clean link');
  assertNoPageErrors();
});

test('step-forward advances the counter by exactly one per press and moves the code lines', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openLesson(page);
  await ensurePaused(page);
  const start = await snapshot(page);
  const first = await steps(page);

  const presses = 5;
  const seen = await stepForward(page, presses);
  assert.equal(await steps(page), first + presses);

  const activeSets = [start, ...seen].map((s) => s.active.join(' '));
  assert.ok(
    seen.some((s) => s.active.length > 0),
    'after stepping, some code-line-* should have the class `active`',
  );
  assert.ok(
    new Set(activeSets).size > 1,
    `the active code lines should change while stepping, saw: ${JSON.stringify(activeSets)}`,
  );
  assertNoPageErrors();
});

test('ArrowRight on the page body steps; keys typed into a field do not', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openLesson(page);
  await ensurePaused(page);
  const first = await steps(page);

  await focusBody(page);
  await page.keyboard.press('ArrowRight');
  await waitForSteps(page, first + 1);
  assert.equal(await steps(page), first + 1);

  // With focus in a form field the shortcut is ignored: ArrowRight there, then one button press,
  // must add exactly one step (no sleeping needed: the key event is handled before the click).
  const field = page.locator(inSim('input-workers'));
  if ((await field.count()) > 0) {
    await field.focus();
    await page.keyboard.press('ArrowRight');
    await page.locator(inSim('step-forward')).click();
    await waitForSteps(page, first + 2);
    assert.equal(await steps(page), first + 2, 'ArrowRight inside an input must not step');
  }
  assertNoPageErrors();
});

test('step-back undoes one step and restores the previous counters', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openLesson(page);
  await ensurePaused(page);
  const first = await steps(page);

  const seen = await stepForward(page, 3);
  const previous = seen[1]; // after two steps
  await page.locator(inSim('step-back')).click();
  await waitForSteps(page, first + 2);

  const now = await snapshot(page);
  assert.deepEqual(now.counters, previous.counters, 'counters after step-back');
  assert.deepEqual(now.active, previous.active, 'active code lines after step-back');
  assert.deepEqual(now.lanes, previous.lanes, 'lane states after step-back');
  assertNoPageErrors();
});

test('copy-link makes a link that reopens the same state', { timeout: TEST_TIMEOUT }, async (t) => {
  const { context, page, assertNoPageErrors } = await openPage(t);
  await context
    .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE).origin })
    .catch(() => {});
  await openLesson(page);
  await ensurePaused(page);
  await stepForward(page, 4);
  const state = await snapshot(page);

  await page.locator(inSim('copy-link')).click();
  const output = page.locator(inSim('link-output'));
  await output.waitFor();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="sim-main"] [data-testid="link-output"]')?.value,
  );
  const link = new URL(await output.inputValue(), `${BASE}/`).href;
  assert.match(link, new RegExp(`#/lesson/${SLUG}`), `link-output should hold a lesson link, got ${link}`);

  // A separate context: the state has to come from the link alone.
  const other = await openPage(t);
  await other.page.goto(link);
  await waitForSim(other.page);
  await waitForSteps(other.page, Number(state.counters.steps));
  const reopened = await snapshot(other.page);
  assert.deepEqual(reopened.counters, state.counters, `counters from ${link}`);
  assert.deepEqual(reopened.active, state.active, `active code lines from ${link}`);
  assert.equal(await other.page.locator('[data-testid="url-error"]').count(), 0, 'no url-error on a copied link');
  assertNoPageErrors();
  other.assertNoPageErrors();
});

test('a malformed link names the bad parameter and its allowed values, and starts from defaults', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openLesson(page);
  await ensurePaused(page);
  const defaults = await snapshot(page);

  const bad = await openPage(t);
  await bad.page.goto(`${LESSON}?workers=999&mode=bogus`);
  const error = bad.page.locator('[data-testid="url-error"]');
  await error.waitFor();
  const text = (await error.textContent()).trim();
  assert.match(text, /workers/, `url-error should name \`workers\`: ${JSON.stringify(text)}`);
  const numbers = text.match(/\d+/g) ?? [];
  assert.ok(
    numbers.some((n) => n !== '999'),
    `url-error should give the allowed values for workers: ${JSON.stringify(text)}`,
  );

  await waitForSim(bad.page);
  await ensurePaused(bad.page);
  const started = await snapshot(bad.page);
  assert.deepEqual(started.lanes, defaults.lanes, 'the simulation should use the default workers');
  assert.deepEqual(started.counters, defaults.counters, 'the simulation should start from the defaults');

  // One bad value on its own: the error names it and lists allowed modes.
  const mode = await openPage(t);
  await mode.page.goto(`${LESSON}?mode=bogus`);
  const modeError = mode.page.locator('[data-testid="url-error"]');
  await modeError.waitFor();
  const modeText = (await modeError.textContent()).trim();
  assert.match(modeText, /mode/, `url-error should name \`mode\`: ${JSON.stringify(modeText)}`);
  assert.match(modeText, /wake-all/, `url-error should list the allowed modes: ${JSON.stringify(modeText)}`);
  await waitForSim(mode.page);

  assertNoPageErrors();
  bad.assertNoPageErrors();
  mode.assertNoPageErrors();
});

test('? opens the help overlay and Escape closes it', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await openLesson(page);
  await focusBody(page);
  await page.keyboard.press('?');
  await page.waitForSelector('[data-testid="help-overlay"]', { state: 'visible' });
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="help-overlay"]', { state: 'hidden' });
  assertNoPageErrors();
});

test('64 workers at full speed: report render time and frame rate, take a screenshot', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t, { reducedMotion: 'no-preference' });
  await page.goto(`${LESSON}${PERF_QUERY}`);
  await waitForSim(page);
  await page.waitForSelector(inSim('lane-63'), { state: 'attached' });
  // Milliseconds from the start of navigation to a rendered lesson (wasm fetch and compile included).
  const renderMs = await page.evaluate(() => performance.now());
  console.log(`render_ms: ${Math.round(renderMs)}`);
  assert.equal(await page.locator('[data-testid="url-error"]').count(), 0, 'the perf link is valid');

  // Full speed: press speed-up until the shown speed stops changing (or the button is disabled).
  const speedUp = page.locator(inSim('speed-up'));
  const speed = page.locator(inSim('speed'));
  for (let i = 0; i < 40; i++) {
    if (!(await speedUp.isEnabled())) break;
    const beforeSpeed = (await speed.textContent()).trim();
    await speedUp.click();
    const changed = await page
      .waitForFunction(
        (old) =>
          document.querySelector('[data-testid="sim-main"] [data-testid="speed"]')?.textContent.trim() !== old,
        beforeSpeed,
        { timeout: 2_000 },
      )
      .then(() => true)
      .catch(() => false);
    if (!changed) break;
  }
  console.log(`speed: ${(await speed.textContent()).trim()}`);

  const play = page.locator(inSim('play'));
  if ((await play.getAttribute('aria-pressed')) !== 'true') await play.click();
  await page.waitForSelector(`${inSim('play')}[aria-pressed="true"]`);

  // measure with the lanes on screen, the costly case (where the speed clicks left the page used
  // to decide whether the 64 lanes were drawn at all, so the figure moved between runs)
  await page.locator(inSim('lane-0')).scrollIntoViewIfNeeded();
  await page.evaluate(() => document.querySelector('[data-testid="sim-main"] [data-testid="lane-0"]').scrollIntoView({ block: 'start' }));
  const lanesInView = await page.evaluate(() => {
    const lanes = [...document.querySelectorAll('[data-testid="sim-main"] [data-testid^="lane-"]')];
    return lanes.filter((l) => {
      const r = l.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    }).length;
  });
  console.log(`lanes in view while measuring: ${lanesInView} of 64`);
  assert.ok(lanesInView >= 16, `the lanes are on screen (${lanesInView})`);

  const stepsBefore = await steps(page);
  const { frames, ms } = await page.evaluate(
    (windowMs) =>
      new Promise((resolve) => {
        let frames = 0;
        let t0 = null;
        const tick = (now) => {
          if (t0 === null) t0 = now;
          else frames++;
          if (now - t0 < windowMs) requestAnimationFrame(tick);
          else resolve({ frames, ms: now - t0 });
        };
        requestAnimationFrame(tick);
      }),
    2_000,
  );
  const stepsAfter = await steps(page);
  const fps = (frames * 1000) / ms;
  console.log(`fps: ${fps.toFixed(1)}`);
  console.log(`steps_per_s: ${Math.round(((stepsAfter - stepsBefore) * 1000) / ms)}`);
  assert.ok(stepsAfter > stepsBefore, 'playing should advance the simulation');

  // At full speed the lanes' states change on every frame, their sentences (and the queues) only
  // a few times a second (docs/site-contract.md): how many frames of a second rewrote each, for
  // the log (not asserted: it depends on the frame rate).
  const redrawn = await page.evaluate(
    (windowMs) =>
      new Promise((resolve) => {
        const root = document.querySelector('[data-testid="sim-main"] .lanes');
        let frames = 0;
        let states = 0;
        let sentences = 0;
        let seen = { state: false, sentence: false };
        const note = (ms) => {
          for (const m of ms) {
            if (m.type === 'attributes' && m.attributeName === 'data-state') seen.state = true;
            if (m.type === 'characterData' && m.target.parentElement?.classList.contains('lane-detail')) seen.sentence = true;
          }
        };
        const mo = new MutationObserver(note);
        mo.observe(root, { subtree: true, attributes: true, characterData: true });
        const t0 = performance.now();
        // one count per frame: what changed since the last one
        const tick = (now) => {
          note(mo.takeRecords());
          frames++;
          states += seen.state;
          sentences += seen.sentence;
          seen = { state: false, sentence: false };
          if (now - t0 < windowMs) requestAnimationFrame(tick);
          else {
            mo.disconnect();
            resolve({ frames, states, sentences });
          }
        };
        requestAnimationFrame(tick);
      }),
    1_000,
  );
  console.log(`lanes at full speed: states changed in ${redrawn.states} of ${redrawn.frames} frames, sentences rewritten in ${redrawn.sentences}`);

  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'lesson.png') });

  // The lanes and the queues after thousands of re-rendered frames (lane sentences and queues
  // held between redraws at full speed; entries made, dropped and rewritten in place, keyed by
  // position) are what a fresh render of the same step shows: paused, the address holds the
  // step; a new page opened at it renders the lanes, the wait queue and the last walk at once.
  await page.locator(inSim('play')).click();
  await page.waitForSelector(`${inSim('play')}[aria-pressed="false"]`);
  const at = await steps(page);
  await page.waitForFunction((n) => new URLSearchParams(location.hash.split('?')[1]).get('step') === String(n), at);
  const queues = (p) =>
    p.evaluate(() => {
      const root = document.querySelector('[data-testid="sim-main"]');
      const rows = (q) =>
        [...root.querySelectorAll(q)].map((el) =>
          [el.dataset.testid, el.dataset.thread, el.dataset.exclusive, el.className, el.title, el.textContent].join('|'),
        );
      return {
        lanes: [...root.querySelectorAll('[data-testid^="lane-"]')].map((el) =>
          [el.dataset.testid, el.dataset.state, el.dataset.marks, el.className, el.textContent].join('|'),
        ),
        wq: rows('[data-testid="wait-queue"] > li'),
        walk: rows('[data-testid^="walk-visit-"]'),
      };
    });
  const played = await queues(page);
  const fresh = await openPage(t);
  await fresh.page.goto(page.url());
  await waitForSim(fresh.page);
  await waitForSteps(fresh.page, at);
  assert.deepEqual(await queues(fresh.page), played, `the lanes and queues at step ${at}, played vs opened there`);
  assert.equal(played.lanes.length, 64, 'every lane compared');
  assert.ok(played.wq.length + played.walk.length > 0, 'something is queued or was walked');
  assertNoPageErrors();
  fresh.assertNoPageErrors();
});

test('#/bench counts a second of the herd simulation after a warm-up second, and says both rates', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/bench`);
  await page.waitForSelector('[data-testid="bench-rate"]', { timeout: 60_000 });
  const read = async (id) => Number((await page.textContent(`[data-testid="${id}"]`)).trim());
  const [rate, steps, ms, cold] = [await read('bench-rate'), await read('bench-steps'), await read('bench-ms'), await read('bench-cold-rate')];
  assert.match(await page.textContent('.scenario code'), /^mechanism=herd&/);
  assert.ok(steps > 0 && cold > 0, `steps ${steps}, warm-up rate ${cold}`);
  // the counted second: at least the run time asked for, and the rate is its steps over its time
  assert.ok(ms >= 1000, `counted for ${ms} ms`);
  assert.ok(Math.abs(rate - (steps * 1000) / ms) <= rate * 0.001 + 1, `rate ${rate} = ${steps} steps / ${ms} ms`);
  console.log(`bench page: ${rate} steps/s counted, ${cold} steps/s in the warm-up second`);
  assertNoPageErrors();
});
