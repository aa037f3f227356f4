// Browser tests for how a lesson page gets its text, against docs/site-contract.md: the lesson
// texts are not in the wasm; the page fetches lessons/<slug>.txt (written by `cargo xtask
// lessons`, copied into dist/ by trunk), shows `lesson-loading` until it has it, and
// `lesson-error` (with `lesson-retry`) when it cannot get it.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage, waitForSim } from './support.mjs';

const LESSON = `${BASE}/#/lesson/thundering-herd`;
const FILE = '**/lessons/thundering-herd.txt*';
// a refused or missing file makes the browser log "Failed to load resource"
const quietConsole = /Failed to load resource/;

const TEST_TIMEOUT = 60_000;

useBrowser();

/** Every request the page makes for a lesson file. */
function lessonRequests(page) {
  const urls = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.includes('/lessons/')) urls.push(r.url());
  });
  return urls;
}

test('the lesson page shows a loading line until its file arrives, then the lesson', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(FILE, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(LESSON);
  const loading = page.locator('[data-testid="lesson-loading"]');
  await loading.waitFor();
  assert.equal((await loading.textContent()).trim(), 'Loading “The thundering herd”…');
  assert.equal(await page.title(), 'The thundering herd · herdlab');
  assert.equal(await page.locator('[data-testid="sim-main"]').count(), 0);
  // the address changes while the file is on its way: the page mounted for it waits as well
  await page.evaluate(() => {
    location.hash = '#/lesson/thundering-herd?workers=3&cpus=1';
  });
  await page.waitForFunction(() => !document.querySelector('[data-testid="lesson-error"]'));
  await loading.waitFor();
  release();
  await waitForSim(page);
  assert.equal(await loading.count(), 0);
  assert.equal(await page.locator('h1').first().textContent(), 'The thundering herd');
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="lane-2"]');
  assert.equal(await page.locator('[data-testid="sim-main"] [data-testid="lane-3"]').count(), 0);
  assertNoPageErrors();
});

test('the file is fetched once, from lessons/<slug>.txt?v=<tag>, and not for an unknown slug', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const urls = lessonRequests(page);
  await page.goto(LESSON);
  await waitForSim(page);
  assert.equal(urls.length, 1, urls.join(' '));
  assert.match(urls[0], /\/lessons\/thundering-herd\.txt\?v=[0-9a-f]{16}$/);
  // Every address change mounts the page anew (here: a link with other values); the text is kept.
  await page.evaluate(() => {
    location.hash = '#/lesson/thundering-herd?workers=3&cpus=1';
  });
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="lane-2"]');
  assert.equal(await page.locator('[data-testid="sim-main"] [data-testid="lane-3"]').count(), 0);
  assert.equal(urls.length, 1, 'no second fetch');
  await page.evaluate(() => {
    location.hash = '#/lesson/no-such-lesson';
  });
  await page.waitForSelector('[data-testid="not-found"]');
  assert.equal(urls.length, 1, 'an unknown slug fetches nothing');
  assertNoPageErrors();
});

test('a failed fetch says what failed, and "try again" loads the lesson', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t, { quietConsole });
  await page.route(FILE, (route) => route.abort('failed'));
  await page.goto(LESSON);
  const error = page.locator('[data-testid="lesson-error"]');
  await error.waitFor();
  const text = await error.textContent();
  assert.match(text, /“The thundering herd” could not be loaded\./);
  assert.match(text, /Fetching lessons\/thundering-herd\.txt failed \(.+\)\./);
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.equal(await page.locator('[data-testid="lesson-loading"]').count(), 0);
  await page.unroute(FILE);
  await page.locator('[data-testid="lesson-retry"]').click();
  await waitForSim(page);
  assert.equal(await error.count(), 0);
  assertNoPageErrors();
});

test('a missing file shows its HTTP status; a page that is not a lesson file says so', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t, { quietConsole });
  await page.route(FILE, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await page.goto(LESSON);
  const error = page.locator('[data-testid="lesson-error"]');
  await error.waitFor();
  assert.match(await error.textContent(), /Fetching lessons\/thundering-herd\.txt failed \(HTTP 404( Not Found)?\)\./);
  // a static server that answers every path with index.html
  await page.unroute(FILE);
  await page.route(FILE, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>herdlab</title>' }),
  );
  await page.locator('[data-testid="lesson-retry"]').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="lesson-error"]')?.textContent.includes('could not be read'),
  );
  assert.match(
    await error.textContent(),
    /The file lessons\/thundering-herd\.txt could not be read: it is not a lesson file \(it does not start with `herdlab-lesson`\)\./,
  );
  assertNoPageErrors();
});
