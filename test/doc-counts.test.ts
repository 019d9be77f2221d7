// Counts the documentation states (deviations, clauses, decision points, wire faults) are the catalogue's and the scripts' today: a stale figure fails here instead of misleading a reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { loadClauses, loadDeviations } from '../lib/catalogue.js';
import { decisionPoints } from '../scripts/decision-points.js';

/** README.md and every page of docs/. */
const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** A figure with a date on its line is a measurement of that day, not a count of today. */
const dated = (line: string) => /\b20\d\d-\d\d-\d\d\b/.test(line);
/**
 * What a page quotes (a run's output in a fenced block or a code span, e.g. `5 clauses not judged: ...` of one `ces check`) is not a
 * count of the catalogue: blanked out, same length and lines, so line numbers stay right.
 */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, (q) => q.replace(/[^\n]/g, ' ')).replace(/`[^`]*`/g, (q) => q.replace(/[^\n]/g, ' '));

test('every count of deviations, clauses, decision points and wire faults in README.md and docs/ is today\'s', () => {
  const clauses = loadClauses();
  const wire = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'wire-faults.json'), 'utf8')) as unknown[];
  const counts: Record<string, number> = {
    deviations: loadDeviations().length,
    clauses: clauses.length,
    'MUST clauses': clauses.filter((c) => c.severity === 'MUST').length,
    'REF clauses': clauses.filter((c) => c.severity === 'REF').length,
    'SHOULD clauses': clauses.filter((c) => c.severity === 'SHOULD').length,
    'decision points': decisionPoints().length,
    'wire faults': wire.length,
  };
  const kinds = Object.keys(counts).sort((a, b) => b.length - a.length).map((k) => k.replace(' ', '\\s+')).join('|');
  const found: string[] = [];
  const stale: string[] = [];
  for (const page of pages) {
    const text = prose(fs.readFileSync(path.join(ROOT, page), 'utf8'));
    for (const m of text.matchAll(new RegExp(`\\b(\\d+)\\s+(${kinds})\\b`, 'g'))) {
      const lineNo = text.slice(0, m.index).split('\n').length;
      if (dated(text.split('\n')[lineNo - 1]!)) continue;
      const kind = m[2]!.replace(/\s+/g, ' ');
      found.push(`${page}:${lineNo} ${m[0].replace(/\s+/g, ' ')}`);
      if (Number(m[1]) !== counts[kind]) stale.push(`${page}:${lineNo}: "${m[0].replace(/\s+/g, ' ')}", today ${counts[kind]} ${kind}`);
    }
  }
  assert.deepEqual(stale, [], 'a count in the documentation is stale: write today\'s (a measurement of a past day keeps its date on its line)');
  // The figures this test exists for are still written where readers look.
  for (const kind of ['deviations', 'clauses', 'decision points']) assert.ok(found.some((f) => f.endsWith(kind)), `no page states the number of ${kind} any more: ${found.join('; ')}`);
});

test('the README\'s "at least N clauses judged" against a bare target is the floor test/bare-target.test.ts holds', () => {
  const floor = /const JUDGED_AT_LEAST = (\d+);/.exec(fs.readFileSync(path.join(ROOT, 'test', 'bare-target.test.ts'), 'utf8'))?.[1];
  assert.ok(floor, 'test/bare-target.test.ts defines JUDGED_AT_LEAST');
  assert.match(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), new RegExp(`at least ${floor} of the \\d+ clauses judged`));
});
