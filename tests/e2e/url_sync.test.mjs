// Browser test: the address of a lesson always reopens what its main simulation shows. While it
// plays, the page rewrites the address at most a few times a second; when playback pauses (or a
// step is taken by hand) the address is written at once.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/url_sync.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage, waitForSim, sel } from './support.mjs';

useBrowser();

const steps = async (page) => Number((await page.locator(sel('counter-steps', 'main')).textContent()).trim());

test('play, pause: the address names the step shown, and reopening it shows that step', { timeout: 90_000 }, async (t) => {
  const { page, context, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/thundering-herd?connections=64`);
  await waitForSim(page);
  const play = page.locator(sel('play', 'main'));
  await play.click();
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]').textContent) >= 25,
  );
  await play.click();
  assert.equal(await play.getAttribute('aria-pressed'), 'false');
  const shown = await steps(page);
  const url = page.url();
  const step = Number(new URLSearchParams(url.split('?')[1]).get('step'));
  assert.equal(step, shown, `the address ${url} names step ${step}, the widget shows ${shown}`);

  // a manual step is written too
  await page.locator(sel('step-forward', 'main')).click();
  assert.equal(Number(new URLSearchParams(page.url().split('?')[1]).get('step')), shown + 1);
  await page.locator(sel('step-back', 'main')).click();

  const again = await context.newPage();
  await again.goto(url);
  await waitForSim(again);
  assert.equal(await steps(again), shown, 'reopening the address shows the same step');
  assertNoPageErrors();
});
