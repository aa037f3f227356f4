// Browser test: axe-core (npm `axe-core`, injected into the page) finds no serious or critical
// accessibility violation on any page of the site: home, each lesson, #/check, #/bench, #/glossary.
// The experimental rule label-content-name-mismatch (a control's accessible name must contain its
// visible text) is switched on as well.
//
// Run by `cargo xtask test`, or by hand: HERDLAB_URL=http://127.0.0.1:8080 node --test tests/e2e/a11y.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { BASE, useBrowser, openPage, waitForSim } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const LESSONS = ['thundering-herd', 'nginx-shmtx', 'epoll-herd', 'nginx-accept-mutex'];

useBrowser();

/** The serious and critical violations axe finds on the page as it is now, one line each. */
async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, {
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}, ${v.nodes.length} nodes): ${n}`));
}

const PAGES = [
  ['home', '#/', async (page) => page.waitForSelector('[data-testid^="lesson-link-"]')],
  ...LESSONS.map((slug) => [`lesson ${slug}`, `#/lesson/${slug}`, (page) => waitForSim(page)]),
  ['check', '#/check', (page) => page.waitForSelector('[data-testid="check-page"]')],
  ['bench', '#/bench', (page) => page.waitForSelector('main h1, main h2')],
  ['glossary', '#/glossary', (page) => page.waitForSelector('[data-testid="glossary-page"]')],
];

for (const [name, hash, ready] of PAGES) {
  test(`axe: no serious or critical violation on ${name}`, { timeout: 120_000 }, async (t) => {
    const { page, assertNoPageErrors } = await openPage(t);
    await page.goto(`${BASE}/${hash}`);
    await ready(page);
    // step the widgets once, so that the pages are checked with lanes and queues filled in
    const forwards = page.locator('[data-testid="step-forward"]:not([disabled])');
    for (let i = 0; i < (await forwards.count()); i++) await forwards.nth(i).click().catch(() => {});
    const found = await axeViolations(page);
    assert.deepEqual(found, [], `axe violations on ${name}`);
    assertNoPageErrors();
  });
}
