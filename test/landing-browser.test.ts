// Browser test of reports/index.html in Debian Chromium from file://: filters, two clicks to a failure's evidence, phone width, keyboard, no network.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { makeReports, CLAUSES, DEVIATIONS, type FixtureReports } from './report-fixture.js';
import { buildAll } from '../lib/landing.js';

const CHROMIUM = process.env.CES_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser: Browser;
let reports: FixtureReports;
/** The reports folder under test: CES_LANDING_DIR (an existing folder, e.g. a real run's) or one built from the fixture. */
let dir: string;

before(async () => {
  if (process.env.CES_LANDING_DIR) dir = path.resolve(process.env.CES_LANDING_DIR);
  else {
    reports = makeReports();
    buildAll({ reportsDir: reports.dir, clauses: CLAUSES, deviations: DEVIATIONS });
    dir = reports.dir;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
after(async () => { await browser?.close(); });

/** Opens the landing page and records every request that is not to the file system. */
async function open(viewport = { width: 1280, height: 900 }): Promise<{ page: Page; network: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const network: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => { if (!/^(file|data|about):/.test(r.url())) network.push(r.url()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
  return { page, network, errors };
}

const visibleVerdicts = (page: Page) => page.$$eval('#matrix tbody tr', (trs) => trs.filter((t) => !(t as HTMLElement).hidden).map((t) => (t as HTMLElement).dataset.verdict));

test('filter the matrix, follow a failing clause to its evidence in two clicks, and screenshot both pages', async () => {
  const { page, network, errors } = await open();
  const total = await page.locator('#matrix tbody tr').count();
  assert.ok(total > 0);
  // A red clause if there is one (a real folder may only have warnings: SHOULD clauses that failed).
  const wanted = (await page.locator('#matrix tbody tr[data-verdict="fail"]').count()) > 0 ? 'fail' : 'warn';
  await page.selectOption('#f-verdict', wanted);
  const shown = await visibleVerdicts(page);
  assert.ok(shown.length > 0 && shown.length < total, `the filter keeps some rows (${shown.length} of ${total})`);
  assert.ok(shown.every((v) => v === wanted));
  assert.match(await page.locator('#shown').innerText(), new RegExp(`^${shown.length} of ${total} clauses shown$`));
  assert.match(page.url(), new RegExp(`#filter:verdict=${wanted}$`), 'the filtered view has a link of its own');
  // Area filter on top: the areas shown belong to the chosen area only.
  const area = await page.locator('#matrix tbody tr:not([hidden])').first().getAttribute('data-area');
  await page.selectOption('#f-area', area!);
  assert.ok((await page.$$eval('#matrix tbody tr:not([hidden])', (trs) => trs.map((t) => (t as HTMLElement).dataset.area))).every((a) => a === area));
  await page.screenshot({ path: path.join(dir, 'landing-browser.png'), fullPage: true });

  // Click 1 was the filter (optional); the link to the failing check's evidence is the one click that matters.
  const link = page.locator('#matrix tbody tr:not([hidden]) td.checks a:has(.o-failed)').first();
  const clause = await page.locator('#matrix tbody tr:not([hidden])').first().getAttribute('id');
  await link.click();
  await page.waitForURL(/evidence\.html#/);
  const anchor = decodeURIComponent(new URL(page.url()).hash.slice(1));
  const section = page.locator(`section[id="${anchor}"]`);
  assert.equal(await section.getAttribute('data-outcome'), 'failed');
  assert.ok(await section.locator('pre.reason').isVisible(), 'the failure reason is visible');
  // The call that went wrong is open: what came back shown as its body, the whole record (request and response) beside it.
  const call = section.locator('details[open]:has(> summary .call)').first();
  assert.ok(await call.isVisible(), 'the request/response is open');
  assert.match(await call.locator('> pre').last().innerText(), /"meta"/, 'what came back, as its body');
  assert.match(await call.innerText(), /came back/);
  assert.match(await call.locator('details:has(> summary:text("recorded data")) > pre').first().textContent() ?? '', /"request"[\s\S]*"response"/);
  assert.ok(await section.locator(`a[href="../index.html#${clause}"]`).count() > 0, 'the evidence links back to the clause');
  if (!process.env.CES_LANDING_DIR) assert.equal(await section.locator('svg.ces-sequence').count(), 1, 'the sequence diagram is inline');
  await page.screenshot({ path: path.join(dir, 'evidence-browser.png'), fullPage: false });
  assert.ok(fs.statSync(path.join(dir, 'landing-browser.png')).size > 1000);
  assert.ok(fs.statSync(path.join(dir, 'evidence-browser.png')).size > 1000);
  assert.deepEqual(network, [], 'no network request');
  assert.deepEqual(errors, [], 'no script error');
  await page.close();
});

test('the filter state in the link is restored, and Clear shows every clause again', async () => {
  const { page } = await open();
  await page.goto(pathToFileURL(path.join(dir, 'index.html')).href + '#filter:verdict=not-run');
  await page.reload();
  assert.equal(await page.locator('#f-verdict').inputValue(), 'not-run');
  assert.ok((await visibleVerdicts(page)).every((v) => v === 'not-run'));
  await page.click('button[type=reset]');
  await page.waitForFunction(() => document.querySelectorAll('#matrix tbody tr[hidden]').length === 0);
  await page.close();
});

test('usable with the keyboard: skip link, filters and links reachable by Tab, text filter by typing', async () => {
  const { page } = await open();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the clause matrix');
  const seen: string[] = [];
  for (let i = 0; i < 60 && !seen.includes('f-text'); i++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement?.id ?? ''));
  }
  assert.ok(['f-area', 'f-verdict', 'f-severity', 'f-text'].every((id) => seen.includes(id)), `focus order reached the filters: ${seen.filter(Boolean).join(', ')}`);
  const first = await page.locator('#matrix tbody tr').first().getAttribute('id');
  await page.keyboard.type(first!.replace(/^clause-/, ''));
  const shown = await page.$$eval('#matrix tbody tr:not([hidden])', (trs) => trs.map((t) => t.id));
  assert.ok(shown.includes(first!) && shown.length < (await page.locator('#matrix tbody tr').count()));
  await page.close();
});

test('readable on a phone: no horizontal scrolling of the page, matrix rows as cards', async () => {
  const { page } = await open({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than the phone`);
  assert.equal(await page.locator('#matrix thead').evaluate((e) => getComputedStyle(e).position), 'absolute', 'table header moved away');
  assert.equal(await page.locator('#matrix tbody tr').first().evaluate((e) => getComputedStyle(e).display), 'block');
  await page.screenshot({ path: path.join(dir, 'landing-phone.png'), fullPage: false });
  await page.close();
});
