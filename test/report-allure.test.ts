// Allure HTML generation (cli/allure.ts): offline single file from allure-results, secrets masked before Allure inlines them, no analytics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateAllure, withoutAnalytics } from '../cli/allure.js';
import { findLeaks, scrubDir } from '../lib/results.js';
import { addSecret } from '../lib/mask.js';

const SECRET = 'allure-fixture-secret-key-0042';

test('allure generate writes one offline index.html with clause labels and severity, and no secret', async () => {
  addSecret(SECRET);
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-allure-'));
  const results = path.join(run, 'allure-results');
  fs.mkdirSync(results);
  fs.writeFileSync(path.join(results, '0b7e6f4c-1111-4c4c-9c9c-000000000001-attachment.json'), JSON.stringify({ request: { url: `https://x.example/?key=${SECRET}` } }));
  fs.writeFileSync(path.join(results, '0b7e6f4c-1111-4c4c-9c9c-000000000001-result.json'), JSON.stringify({
    uuid: '0b7e6f4c-1111-4c4c-9c9c-000000000001', historyId: 'h1', testCaseId: 't1', fullName: 'rest/auth.spec.ts#wrong key', name: 'a wrong key is Forbidden',
    status: 'failed', stage: 'finished', start: 1, stop: 2, statusDetails: { message: `key was ${SECRET}` }, description: `sent key=${SECRET}`,
    labels: [{ name: 'severity', value: 'critical' }, { name: 'story', value: 'REST-AUTH-04' }, { name: 'suite', value: 'rest/auth.spec.ts' }, { name: 'parentSuite', value: 'suites' }],
    links: [{ type: 'tms', url: '../../index.html#clause-REST-AUTH-04', name: 'clause REST-AUTH-04' }],
    steps: [{ name: 'GET /operator', status: 'passed', stage: 'finished', start: 1, stop: 2, steps: [], parameters: [],
      attachments: [{ name: 'GET /operator', type: 'application/json', source: '0b7e6f4c-1111-4c4c-9c9c-000000000001-attachment.json' }] }],
    attachments: [], parameters: [],
  }));
  // As runPlaywright does when Playwright ends: the results are masked before anything reads them. The result file that
  // generateAllure rewrites (its suite label) is masked again as it is written.
  scrubDir(path.join(results, '0b7e6f4c-1111-4c4c-9c9c-000000000001-attachment.json'));
  assert.equal(await generateAllure(run, [], { reportName: 'fixture' }), true);
  const rewritten = fs.readFileSync(path.join(results, '0b7e6f4c-1111-4c4c-9c9c-000000000001-result.json'), 'utf8');
  assert.match(rewritten, /"parentSuite","value":"rest"|"name":"parentSuite","value":"rest"/, 'rewritten by generateAllure');
  assert.doesNotMatch(rewritten, new RegExp(SECRET), 'and masked as it was written');
  const index = path.join(run, 'allure-report', 'index.html');
  const html = fs.readFileSync(index, 'utf8');
  assert.ok(html.length > 100_000, 'the single file holds the app and the data');
  assert.doesNotMatch(html, /googletagmanager/);
  assert.deepEqual(fs.readdirSync(path.join(run, 'allure-report')).filter((f) => f.endsWith('.js')), [], 'no side script to fetch: everything is inline');
  assert.deepEqual(findLeaks(run, [SECRET]), [], 'masked in allure-results before Allure inlined them');
  // The data is inlined base64: the clause label, its landing-page link and the severity are in it.
  const data = [...html.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8')).join('\n');
  assert.match(data, /"story","value":"REST-AUTH-04"|"name":"story","value":"REST-AUTH-04"/);
  assert.match(data, /\.\.\/\.\.\/index\.html#clause-REST-AUTH-04/);
  assert.match(data, /"severity","value":"critical"|"name":"severity","value":"critical"|"severity":"critical"/);
  assert.match(data, /key=\*\*\*/, 'the attachment is there, masked');
});

test('an empty results folder is no report (false), not a crash', async () => {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-allure-'));
  fs.mkdirSync(path.join(run, 'allure-results'));
  assert.equal(await generateAllure(run, []), false);
});

test('analytics are cut out of the Allure page', () => {
  const page = `<body><div id="app"></div>\n    <script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>\n    <script>\n        window.dataLayer = window.dataLayer || [];\n        function gtag(){dataLayer.push(arguments);}\n        gtag('js', new Date());\n    </script>\n<script>keep()</script></body>`;
  const out = withoutAnalytics(page);
  assert.doesNotMatch(out, /gtag|googletagmanager/);
  assert.match(out, /<script>keep\(\)<\/script>/);
});

test('applyVerdicts finds each check by the titlePath allure-playwright writes and labels it with its verdict', async () => {
  const { applyVerdicts } = await import('../cli/allure.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-allure-verdicts-'));
  const result = (uuid: string, titlePath: string[], name: string, status: string) => fs.writeFileSync(path.join(dir, `${uuid}-result.json`), JSON.stringify({
    uuid, name, status, titlePath, labels: [{ name: 'parentSuite', value: 'longest' }, { name: 'suite', value: `${titlePath[1]}/${titlePath[2]}` }], parameters: [],
  }));
  result('a', ['ces-harness', 'webhooks', 'delivery.spec.ts', 'webhook delivery'], 'retries at +10 s', 'failed');
  result('b', ['ces-harness', 'rest', 'delivery.spec.ts'], 'retries at +10 s', 'passed');
  const check = (project: string, title: string, outcome: 'failed' | 'passed', reason?: string) =>
    ({ title, file: 'delivery.spec.ts', project, clauses: ['WH-RETRY-01'], outcome, reason, durationMs: 1, anchor: 'x' });
  applyVerdicts(dir, [check('rest', 'retries at +10 s', 'passed'), check('webhooks', 'webhook delivery › retries at +10 s', 'failed', 'second attempt at 12 s')] as never, true);
  const read = (uuid: string) => JSON.parse(fs.readFileSync(path.join(dir, `${uuid}-result.json`), 'utf8'));
  assert.equal(read('a').statusDetails.message, 'FAIL: second attempt at 12 s');
  assert.deepEqual(read('a').parameters, [{ name: 'verdict', value: 'FAIL' }]);
  assert.equal(read('a').labels.find((l: { name: string }) => l.name === 'parentSuite').value, 'webhooks');
  assert.deepEqual(read('b').parameters, [{ name: 'verdict', value: 'PASS' }]);
  assert.equal(read('b').labels.find((l: { name: string }) => l.name === 'parentSuite').value, 'rest');
});
