// The clause catalogue is whole: ids well formed and unique, every clause has a check, every check names clauses, every deviation is used and known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadClauses, loadDeviations } from '../lib/catalogue.js';
import { listChecks } from '../lib/list-checks.js';
import { ROOT } from '../lib/paths.js';

const clauses = loadClauses();
const deviations = loadDeviations();

test('clause ids are well formed, unique, with a severity, a text and a source', () => {
  const seen = new Set<string>();
  for (const c of clauses) {
    assert.match(c.id, /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/, `bad clause id ${c.id}`);
    assert.ok(!seen.has(c.id), `duplicate clause id ${c.id}`);
    seen.add(c.id);
    assert.ok(['MUST', 'SHOULD', 'MAY', 'REF'].includes(c.severity), `${c.id}: severity ${c.severity}`);
    assert.ok(c.text?.length > 10, `${c.id}: text missing`);
    assert.ok(c.source?.length > 2, `${c.id}: source missing`);
  }
});

test('deviations are unique and name catalogued clauses', () => {
  const ids = new Set(clauses.map((c) => c.id));
  const seen = new Set<string>();
  for (const d of deviations) {
    assert.ok(!seen.has(d.id), `duplicate deviation ${d.id}`);
    seen.add(d.id);
    assert.ok(d.clauses.length > 0, `${d.id} names no clause`);
    for (const c of d.clauses) assert.ok(ids.has(c), `deviation ${d.id} names unknown clause ${c}`);
  }
});

test('every deviation is used by the reference implementation, and every used id is catalogued', () => {
  const used = new Set<string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/\b(?:deviations|dev)\.has\(\s*'([^']+)'/g)) used.add(m[1]!);
    }
  };
  walk(path.join(ROOT, 'reference-impl'));
  walk(path.join(ROOT, 'fake-connector'));
  walk(path.join(ROOT, 'webhook-sink'));
  const known = new Set(deviations.map((d) => d.id));
  for (const id of used) assert.ok(known.has(id), `code uses deviation '${id}' that fixtures/deviations/ does not list`);
  for (const id of known) assert.ok(used.has(id), `deviation '${id}' is listed but no code checks deviations.has('${id}')`);
});

test('every catalogued clause has at least one check, and every check names a catalogued clause', () => {
  const checks = listChecks();
  assert.ok(checks.length > 0, 'no checks found');
  const covered = new Set(checks.flatMap((c) => c.clauses));
  // Clauses checked by k6 thresholds (fixtures/clauses/load.json) have no Playwright check; the next test covers them.
  const missing = clauses.filter((c) => !c.retired && !checkedByK6(c) && !covered.has(c.id)).map((c) => c.id);
  assert.deepEqual(missing, [], `clauses without a check: ${missing.join(', ')}`);
  const ids = new Set(clauses.map((c) => c.id));
  const orphan = checks.filter((c) => c.clauses.filter((id) => ids.has(id)).length === 0).map((c) => `${c.file}: ${c.title}`);
  assert.deepEqual(orphan, [], `checks naming no catalogued clause: ${orphan.join('; ')}`);
});

test('every clause checked by k6 appears in a threshold of a load script (a `clause:<ID>` selector)', () => {
  const dir = path.join(ROOT, 'load');
  const scripts = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  // Threshold keys select tagged samples: `metric{endpoint:x,clause:LOAD-MSG-01}`; request tags use `clause: '...'`, which does not match.
  const inThresholds = new Set([...scripts.matchAll(/clause:([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)[,}]/g)].map((m) => m[1]!));
  const k6 = clauses.filter((c) => !c.retired && checkedByK6(c));
  assert.ok(k6.length > 0, 'no clause has "checkedBy": "k6"');
  const missing = k6.filter((c) => !inThresholds.has(c.id)).map((c) => c.id);
  assert.deepEqual(missing, [], `k6 clauses without a threshold in load/*.js: ${missing.join(', ')}`);
  const ids = new Set(clauses.map((c) => c.id));
  const unknown = [...inThresholds].filter((id) => !ids.has(id));
  assert.deepEqual(unknown, [], `load thresholds name uncatalogued clauses: ${unknown.join(', ')}`);
});

function checkedByK6(c: object): boolean { return (c as { checkedBy?: string }).checkedBy === 'k6'; }
