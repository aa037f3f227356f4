// Helpers shared by the browser tests in this folder (herd.test.mjs, locks.test.mjs, accept.test.mjs,
// herd_check.test.mjs, lessons.test.mjs). Not a test file itself: `cargo xtask test` runs only *.test.mjs.
//
// Drives the system chromium through playwright-core (no browser download). Every test gets its
// own browser context, so tests share no state; pages emulate prefers-reduced-motion by default
// so nothing autoplays under stepping tests.

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE = (process.env.HERDLAB_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
export const CHROMIUM = process.env.HERDLAB_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

export const WAIT = 20_000; // for selectors and conditions; the first load compiles the wasm

let browser;

/**
 * Registers the file's before/after hooks: one headless chromium for all the tests of the
 * calling file, closed after them. Call it once, at the top level of a test file.
 */
export function useBrowser() {
  before(async () => {
    // launch() gives the browser a fresh temporary profile (user-data-dir) and removes it on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    await browser?.close();
  });
}

/**
 * A fresh, isolated context and page, closed when test `t` ends. Uncaught page errors (a wasm
 * panic, say) fail the test through assertNoPageErrors(). Browser console errors are echoed to
 * stderr, except those matching `quietConsole` (a RegExp), if given.
 */
export async function openPage(t, { reducedMotion = 'reduce', quietConsole } = {}) {
  const context = await browser.newContext({
    reducedMotion,
    viewport: { width: 1280, height: 900 },
  });
  await context.addInitScript(RECORDER);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const errors = [];
  page.on('pageerror', (err) => {
    errors.push(err);
    // said at once: a test that then times out waiting would otherwise never show it
    console.error(`[page error] ${err}\n${err.stack ?? ''}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !quietConsole?.test(msg.text())) {
      console.error(`[browser console] ${msg.text()}`);
    }
  });
  t.after(async () => {
    await context.close();
  });
  return {
    context,
    page,
    assertNoPageErrors() {
      assert.deepEqual(
        errors.map((e) => String(e)),
        [],
        'the page threw uncaught errors',
      );
    },
  };
}

/** The selector of `testid` inside simulation `sim`, or anywhere on the page without `sim`. */
export const sel = (testid, sim) =>
  sim ? `[data-testid="sim-${sim}"] [data-testid="${testid}"]` : `[data-testid="${testid}"]`;

/** Waits until simulation `sim` is on the page with its step counter and code. */
export async function waitForSim(page, sim = 'main') {
  await page.waitForSelector(`[data-testid="sim-${sim}"]`);
  await page.waitForSelector(sel('counter-steps', sim));
  await page.waitForSelector(sel('code-line-1', sim));
}

/** Waits until the step counter of simulation `sim` shows `n`. */
export async function waitForSteps(page, sim, n) {
  try {
    await page.waitForFunction(
      ([sim, want]) =>
        Number(
          document
            .querySelector(`[data-testid="sim-${sim}"] [data-testid="counter-steps"]`)
            ?.textContent.trim(),
        ) === want,
      [sim, n],
    );
  } catch (e) {
    if (e.name === 'TimeoutError') await explain(page, `waiting for sim-${sim} to show step ${n}`);
    throw e;
  }
}

/**
 * Installed in every page before its scripts (see openPage): records, in a bounded list on
 * `window.__herdlabLog`, each input event (at the window, in the capture phase, before the app
 * sees it) with the test id nearest its target, the pointer's position and the page's scroll
 * offset, each scroll, each layout shift (what moved, from where to where), each change of
 * visibility and of the address's hash. Cheap enough for the fps test: nothing per DOM change.
 * Read by explain() when a wait fails.
 */
export const RECORDER = `(() => {
  const log = (window.__herdlabLog = []);
  const t0 = performance.now();
  const put = (what) => {
    log.push(Math.round(performance.now() - t0) + 'ms ' + what);
    if (log.length > 200) log.shift();
  };
  const id = (el) => (el && el.closest ? el.closest('[data-testid]')?.dataset.testid ?? el.tagName : String(el));
  const at = (e) => (e.clientX === undefined ? '' : ' at ' + e.clientX + ',' + e.clientY + ' scrollY ' + Math.round(scrollY));
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'keydown']) {
    window.addEventListener(type, (e) => put(type + ' on ' + id(e.target) + at(e) + (e.isTrusted ? '' : ' (synthetic)')), true);
  }
  window.addEventListener('scroll', () => put('scroll to ' + Math.round(scrollY)), true);
  try {
    new PerformanceObserver((list) => {
      for (const shift of list.getEntries()) {
        const moved = (shift.sources ?? []).slice(0, 3).map((s) =>
          id(s.node) + ' ' + Math.round(s.previousRect.y) + '->' + Math.round(s.currentRect.y) +
          ' h ' + Math.round(s.previousRect.height) + '->' + Math.round(s.currentRect.height));
        put('layout shift ' + shift.value.toFixed(4) + ': ' + moved.join('; '));
      }
    }).observe({ type: 'layout-shift', buffered: true });
  } catch {}
  document.addEventListener('visibilitychange', () => put('visibility ' + document.visibilityState));
  window.addEventListener('hashchange', () => put('hashchange ' + location.hash.slice(0, 80)));
})();`;

/**
 * After a wait that timed out: says on stderr what the page was doing (its recorded events, the
 * step counters, whether it is visible and whether animation frames still come) and saves a
 * screenshot, so that a failure in CI can be told apart: a click never delivered, one delivered
 * and ignored, or a page that stopped drawing.
 */
export async function explain(page, what) {
  try {
    const state = await page.evaluate(async () => {
      const frame = await Promise.race([
        new Promise((ok) => requestAnimationFrame(() => ok('yes'))),
        new Promise((ok) => setTimeout(() => ok('none within 1 s'), 1000)),
      ]);
      const counters = [...document.querySelectorAll('[data-testid="counter-steps"]')].map(
        (c) => `${c.closest('[data-testid^="sim-"]')?.dataset.testid}=${c.textContent.trim()}`,
      );
      return {
        url: location.href,
        visibility: document.visibilityState,
        focus: document.hasFocus(),
        animationFrame: frame,
        counters,
        log: window.__herdlabLog ?? [],
      };
    });
    console.error(`[explain] ${what}\n${JSON.stringify(state, null, 1)}`);
    const file = path.join(SCREENSHOTS, `failed-${Date.now()}.png`);
    await page.screenshot({ path: file, timeout: 5000 }).catch(() => {});
    console.error(`[explain] screenshot: ${file}`);
  } catch (err) {
    console.error(`[explain] ${what}: the page could not be read (${err})`);
  }
}
