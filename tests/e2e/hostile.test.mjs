// Hostile addresses (issue #15): every lesson (so every mechanism with a playground), opened with
// unknown keys, 10,000-character values, script injection in values, captions and ids, and
// hostile hash routes. Each must show a message naming the key and the allowed values (or the
// not-found page), start from the defaults, log no error to the console, throw nothing, and
// execute no injected markup.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage } from './support.mjs';

const TEST_TIMEOUT = 180_000;

useBrowser();

/** Markup that sets `window.__pwned` if the page ever executes it. */
const INJECT = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=1">',
  '"><svg onload="window.__pwned=1">',
  "javascript:window.__pwned=1",
];
const enc = encodeURIComponent;
const LONG = '9'.repeat(10_000);
const LONG_WORD = 'a'.repeat(10_000);

/** The lessons the home page lists: their slugs. */
async function slugs(page) {
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('[data-testid^="lesson-link-"]');
  return page.$$eval('[data-testid^="lesson-link-"]', (els) =>
    els.map((e) => e.dataset.testid.slice('lesson-link-'.length)),
  );
}

/**
 * Waits until the lesson's playground is on the page, or else until every block of the lazily
 * loaded bundle is drawn (a playground may be one of them: go-scheduler's).
 */
async function settled(page) {
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="counter-steps"], [data-testid="lazy"]');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid="sim-main"] [data-testid="counter-steps"]') ||
    [...document.querySelectorAll('[data-testid="lazy"]')].every((l) => l.querySelector('.widget, .lazy-error')));
}

/** Opens `url` in a fresh page that records console errors; the page and its checks. */
async function open(t, url) {
  const p = await openPage(t, { quietConsole: /./ });
  const consoleErrors = [];
  p.page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  await p.page.goto(url);
  return {
    ...p,
    async assertClean(what) {
      p.assertNoPageErrors();
      assert.deepEqual(consoleErrors, [], `${what}: console errors`);
      const pwned = await p.page.evaluate(() => window.__pwned);
      assert.equal(pwned, undefined, `${what}: injected markup ran`);
      const injected = await p.page.evaluate(
        // the body only: trunk's own loader is an inline module script in <head>
        () => document.body.querySelectorAll('img[src="x"], svg[onload], script:not([src])').length,
      );
      assert.equal(injected, 0, `${what}: injected elements in the page`);
    },
  };
}

/** The counters of the lesson's main simulation (`sim-main`), once it is on the page. */
async function counters(page) {
  await page.waitForSelector('[data-testid="sim-main"] [data-testid="counter-steps"]');
  return page.$$eval('[data-testid="sim-main"] [data-testid^="counter-"]', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.testid, e.textContent.trim()])),
  );
}

test('every lesson opened with hostile queries shows a message, starts from the defaults and runs nothing injected', { timeout: TEST_TIMEOUT * 4 }, async (t) => {
  const home = await openPage(t);
  const lessons = await slugs(home.page);
  assert.ok(lessons.length >= 4, `lessons: ${lessons}`);
  for (const slug of lessons) {
    const lesson = `${BASE}/#/lesson/${slug}`;
    const clean = await open(t, lesson);
    await settled(clean.page);
    if ((await clean.page.locator('[data-testid="sim-main"]').count()) === 0) {
      // no playground (no lesson now; a lesson whose blocks all come from the lazily loaded
      // bundle and none `main=true` would be one): the page refuses any query, and nothing
      // injected runs
      await clean.assertClean(`${slug} (clean)`);
      for (const s of [`bogus=1&${enc('<b>x</b>')}=2`, ...INJECT.map((s) => `mechanism=${enc(s)}&${enc(s)}=${enc(s)}`)]) {
        const what = `${slug}?${s.slice(0, 60)}`;
        const bad = await open(t, `${lesson}?${s}`);
        const error = bad.page.locator('[data-testid="url-error"]');
        await error.waitFor();
        assert.match((await error.textContent()).trim(), /no playground/, what);
        await bad.assertClean(what);
      }
      continue;
    }
    const defaults = await counters(clean.page);
    await clean.assertClean(`${slug} (clean)`);

    const cases = [
      // unknown keys: named, with the allowed ones
      { query: `bogus=1&${enc('<b>x</b>')}=2`, names: /bogus/ },
      // a 10,000-character number and word
      { query: `workers=${LONG}&threads=${LONG}&mode=${LONG_WORD}`, names: /allowed/ },
      // injection in values, keys, captions and ids (page-only keys are skipped, others named)
      ...INJECT.map((s) => ({
        query: `mechanism=${enc(s)}&caption=${enc(s)}&id=${enc(s)}&${enc(s)}=${enc(s)}`,
        names: /mechanism/,
      })),
    ];
    for (const { query, names } of cases) {
      const what = `${slug}?${query.slice(0, 60)}`;
      const bad = await open(t, `${lesson}?${query}`);
      const error = bad.page.locator('[data-testid="url-error"]');
      await error.waitFor();
      const text = (await error.textContent()).trim();
      assert.match(text, names, `${what}: url-error ${JSON.stringify(text.slice(0, 300))}`);
      assert.match(text, /allowed/, `${what}: url-error lists no allowed values`);
      assert.ok(text.length < 4000, `${what}: url-error of ${text.length} characters`);
      assert.deepEqual(await counters(bad.page), defaults, `${what}: not the defaults`);
      await bad.assertClean(what);
    }
  }
});

test('hostile hash routes show the not-found page or the checker with a message, and run nothing injected', { timeout: TEST_TIMEOUT }, async (t) => {
  for (const s of INJECT) {
    const notFound = await open(t, `${BASE}/#/lesson/${enc(s)}`);
    await notFound.page.waitForSelector('[data-testid="not-found"]');
    await notFound.assertClean(`#/lesson/${s}`);

    const route = await open(t, `${BASE}/#/${enc(s)}?${enc(s)}=${enc(s)}`);
    await route.page.waitForSelector('[data-testid="not-found"]');
    await route.assertClean(`#/${s}`);

    const check = await open(t, `${BASE}/#/check?caption=${enc(s)}&id=${enc(s)}&threads=${LONG}`);
    // the check widget lists the block's errors (data-testid="block-error")
    const error = check.page.locator('[data-testid="block-error"]').first();
    await error.waitFor();
    const text = (await error.textContent()).trim();
    assert.match(text, /threads/, `#/check: block-error ${JSON.stringify(text.slice(0, 300))}`);
    assert.match(text, /allowed/, `#/check: block-error lists no allowed values`);
    await check.assertClean(`#/check with ${s}`);

    const glossary = await open(t, `${BASE}/#/glossary?term=${enc(s)}`);
    await glossary.page.waitForLoadState('load');
    await glossary.assertClean(`#/glossary?term=${s}`);
  }
});
