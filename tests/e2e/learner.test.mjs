// Browser tests for the learner's aids (docs/site-contract.md, "Lesson navigation" and the glossary):
// term tooltips on hover and keyboard focus, the glossary page and its anchors, the contents list
// with the section being read, the reading time, previous/next links and the numbered lesson list.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/learner.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, useBrowser, openPage, waitForSim } from './support.mjs';

const LESSONS = ['thundering-herd', 'nginx-shmtx', 'epoll-herd', 'nginx-accept-mutex', 'nginx-thread-pool', 'go-scheduler', 'mysql-thread-per-connection', 'mysql-thread-pool'];

useBrowser();

test('a glossary term shows its definition on hover and on keyboard focus, and links to its entry', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/nginx-shmtx`);
  await waitForSim(page);
  const link = page.locator('a.term-link[data-term="cas"]').first();
  const tipId = await link.getAttribute('aria-describedby');
  const tip = page.locator(`[id="${tipId}"]`);
  assert.equal(await tip.getAttribute('role'), 'tooltip');
  assert.equal(await tip.isVisible(), false, 'hidden until hovered or focused');
  assert.match(await tip.textContent(), /indivisible instruction/);
  await link.hover();
  assert.equal(await tip.isVisible(), true, 'shown on hover');
  await page.mouse.move(0, 0);
  assert.equal(await tip.isVisible(), false);
  await link.focus();
  assert.equal(await tip.isVisible(), true, 'shown on keyboard focus');
  assert.equal(await link.getAttribute('href'), '#/glossary?term=cas');
  await link.click();
  await page.waitForSelector('[data-testid="glossary-page"]');
  const entry = page.locator('[data-testid="glossary-term-cas"]');
  await page.waitForFunction(() => document.getElementById('cas')?.hasAttribute('data-current'));
  assert.match(await entry.textContent(), /Compare-and-swap/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'cas');
  assertNoPageErrors();
});

test('the glossary page lists every term the lessons link to', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  const linked = new Set();
  for (const slug of LESSONS) {
    await page.goto(`${BASE}/#/lesson/${slug}`);
    // the mysql lessons have no playground, and go-scheduler's comes from the lazily loaded
    // bundle with its other widgets: wait for their first block
    const first = { 'go-scheduler': 'gmp-single', 'mysql-thread-per-connection': 'mysql-nocache', 'mysql-thread-pool': 'mysql-tp-listener' };
    await waitForSim(page, first[slug] ?? 'main');
    for (const id of await page.locator('a.term-link').evaluateAll((as) => as.map((a) => a.dataset.term))) linked.add(id);
    assert.equal(await page.locator('a[href^="glossary:"]').count(), 0, `${slug}: no raw glossary: links`);
  }
  assert.ok(linked.size >= 20, `${linked.size} terms linked`);
  await page.goto(`${BASE}/#/glossary`);
  await page.waitForSelector('[data-testid="glossary-page"]');
  const entries = await page.locator('.glossary-entry').evaluateAll((es) => es.map((e) => e.id));
  for (const id of linked) assert.ok(entries.includes(id), `glossary entry ${id}`);
  assert.equal(await page.title(), 'Glossary · herdlab');
  assertNoPageErrors();
});

test('a lesson has contents with the section being read, its reading time and previous/next links', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/nginx-shmtx`);
  await waitForSim(page);
  const toc = page.locator('[data-testid="lesson-toc"]');
  const links = toc.locator('a[data-testid^="toc-"]');
  const n = await links.count();
  const h23 = await page.locator('article.lesson .prose h2, article.lesson .prose h3').count();
  assert.equal(n, h23, 'one contents entry per h2/h3');
  assert.ok(n >= 4);
  const words = Number(await page.locator('[data-testid="reading-time"]').getAttribute('data-words'));
  assert.ok(words > 500, `${words} words`);
  assert.equal((await page.locator('[data-testid="reading-time"]').textContent()).trim(), `${Math.max(1, Math.ceil(words / 200))} min read`);
  // scroll to the third section: it becomes the current one
  const third = await links.nth(2).getAttribute('data-testid');
  const id = third.slice('toc-'.length);
  // (scrolled again while waiting: sections further down lay out as they come into view)
  await page.waitForFunction(([id, tid]) => {
    document.getElementById(id).scrollIntoView();
    return document.querySelector(`[data-testid="${tid}"]`)?.dataset.current === 'true';
  }, [id, third]);
  assert.equal(await page.locator('[data-testid="lesson-toc"] [data-current="true"]').count(), 1);
  // clicking an entry scrolls to its section
  const last = links.nth(n - 1);
  const lastId = (await last.getAttribute('data-testid')).slice('toc-'.length);
  await page.evaluate(() => window.scrollTo(0, 0));
  await last.click();
  await page.waitForFunction((id) => {
    const top = document.getElementById(id).getBoundingClientRect().top;
    return window.scrollY > 0 && top > -5 && top < window.innerHeight;
  }, lastId);
  assert.match(page.url(), /#\/lesson\/nginx-shmtx/, 'the route stays');
  // previous / next
  assert.equal(await page.locator('[data-testid="lesson-prev"]').getAttribute('href'), '#/lesson/thundering-herd');
  assert.equal(await page.locator('[data-testid="lesson-next"]').getAttribute('href'), '#/lesson/epoll-herd');
  await page.goto(`${BASE}/#/lesson/thundering-herd`);
  await waitForSim(page);
  assert.equal(await page.locator('[data-testid="lesson-prev"]').count(), 0);
  assert.equal(await page.locator('[data-testid="lesson-next"]').getAttribute('href'), '#/lesson/nginx-shmtx');
  assertNoPageErrors();
});

test('home lists the lessons numbered, in the suggested order', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('[data-testid="lesson-order"]');
  const order = await page.locator('[data-testid="lesson-order"] > li').evaluateAll((lis) =>
    lis.map((li) => [li.dataset.order, li.querySelector('a').dataset.testid]));
  assert.deepEqual(order, LESSONS.map((s, i) => [String(i + 1), `lesson-link-${s}`]));
  assertNoPageErrors();
});

test('counters are labelled in words, with units, and keep their keys', { timeout: 60_000 }, async (t) => {
  const { page, assertNoPageErrors } = await openPage(t);
  await page.goto(`${BASE}/#/lesson/thundering-herd`);
  await waitForSim(page);
  await page.locator('[data-testid="sim-main"] [data-testid="step-forward"]').click();
  const card = (key) => page.locator(`[data-testid="sim-main"] .counter[data-key="${key}"]`);
  assert.equal((await card('wasted_wakeups').locator('dt').textContent()).trim(), 'wasted wakeups');
  assert.equal((await card('sim_time_ns').locator('dt').textContent()).trim(), 'simulated time');
  const ns = Number((await page.locator('[data-testid="sim-main"] [data-testid="counter-sim_time_ns"]').textContent()).trim());
  assert.ok(Number.isInteger(ns));
  assert.match((await card('sim_time_ns').locator('dd.human').textContent()).trim(), /^[\d.]+ (ns|µs|ms|s)$/);
  const labels = await page.locator('[data-testid="sim-main"] .counter dt').allTextContents();
  for (const l of labels) assert.ok(!l.includes('_'), `label "${l}" is words`);
  assertNoPageErrors();
});
