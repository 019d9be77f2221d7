// The clause catalogue is whole: ids well formed and unique, every clause has a check, every check names clauses; every deviation acts at a seam (read from the registry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadClauses, loadDeviations } from '../lib/catalogue.js';
import { listChecks } from '../lib/list-checks.js';
import { ROOT } from '../lib/paths.js';
import { deviationRegistry, entryProblems } from '../lib/deviation-registry.js';
import { buildPolicies, policyFieldError } from '../reference-impl/policies.js';

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

test('every deviation acts at a known seam, with policy fields and JSON edits the seam accepts (the registry, not the source)', () => {
  const problems: string[] = [];
  for (const d of deviationRegistry().values()) {
    for (const p of entryProblems(d)) problems.push(`${d.id}: ${p}`);
    if (d.seam?.endsWith('.policy')) {
      for (const [field, value] of Object.entries(d.set ?? {})) {
        const err = policyFieldError(d.seam.slice(0, -'.policy'.length), field, value);
        if (err) problems.push(`${d.id}: ${err}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('each deviation changes its seam: its policy differs from the defaults, or it has edits', () => {
  const plain = buildPolicies([]);
  for (const d of deviationRegistry().values()) {
    if (!d.seam.endsWith('.policy')) { assert.ok(d.edits?.length, d.id); continue; }
    const area = d.seam.slice(0, -'.policy'.length) as keyof typeof plain;
    const changed = buildPolicies([d])[area] as Record<string, unknown>;
    const before = plain[area] as Record<string, unknown>;
    assert.ok(Object.keys(d.set!).some((k) => changed[k] !== before[k]), `${d.id} sets ${Object.keys(d.set!).join(', ')} to what they already are`);
  }
});

test('the reference implementation names no deviation id outside the registry\'s data', () => {
  const ids = [...deviationRegistry().keys()];
  const named: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|js)$/.test(e.name)) {
        const src = fs.readFileSync(p, 'utf8');
        for (const id of ids) if (src.includes(`'${id}'`) || src.includes(`"${id}"`)) named.push(`${path.relative(ROOT, p)}: ${id}`);
      }
    }
  };
  for (const d of ['reference-impl', 'fake-connector', 'webhook-sink']) walk(path.join(ROOT, d));
  assert.deepEqual(named, []);
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
