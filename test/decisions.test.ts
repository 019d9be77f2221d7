// The repository stands on its own: docs/decisions.md holds every decision a clause rests on (each REF clause names one), its Clauses lines are the catalogue's, and the docs send no reader outside the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { loadClauses } from '../lib/catalogue.js';
import { DECISIONS_DOC, decisionIds, namedIn, withClauseLines } from '../scripts/decisions.js';

const doc = fs.readFileSync(DECISIONS_DOC, 'utf8');
const ids = new Set(decisionIds(doc));
const SPEC_TITLE = 'Conversational Engagement Service: Interface Specification';

test('every REF clause names a decision of docs/decisions.md in its source, and every id a source names is a section of it', () => {
  const refs = loadClauses().filter((c) => c.severity === 'REF');
  assert.ok(refs.length > 50);
  const without = refs.filter((c) => !namedIn(c.source ?? '').some((id) => ids.has(id))).map((c) => `${c.id} (${c.source})`);
  assert.deepEqual(without, [], 'a REF clause rests on a decision: name its section of docs/decisions.md (G.. or D..) in the source');
  const unknown = loadClauses().flatMap((c) => namedIn(c.source ?? '').filter((id) => !ids.has(id)).map((id) => `${c.id}: ${id}`));
  assert.deepEqual(unknown, [], 'a source names a decision docs/decisions.md does not have');
});

test('clause sources name sections of the specification or of docs/decisions.md, never an issue or a document outside the repository', () => {
  const outside = loadClauses().filter((c) => /\bissues?\b|GAPS|DESIGN|ARCHITECTURE|\.\.\//i.test(c.source ?? '')).map((c) => `${c.id}: ${c.source}`);
  assert.deepEqual(outside, []);
});

test('docs/decisions.md: one anchor per section, ids unique, each section\'s Clauses line as the catalogue makes it', () => {
  const headings = decisionIds(doc);
  assert.equal(new Set(headings).size, headings.length, 'a decision id is used twice');
  const anchors = [...doc.matchAll(/<a id="([gd]\d+)"><\/a>\n## ([GD]\d+) /g)];
  assert.deepEqual(anchors.map((m) => m[1]), headings.map((h) => h.toLowerCase()), 'each section is `<a id="g1"></a>` then `## G1 ...`');
  assert.equal(doc.match(/^Clauses: /gm)?.length, headings.length, 'one Clauses line per section');
  assert.equal(withClauseLines(doc), doc, 'a Clauses line is out of date: node --import tsx scripts/decisions.ts --write');
});

test('README.md, docs/ and fixtures/ send no reader outside the repository; README and ARCHITECTURE name the specification and point at docs/decisions.md', () => {
  const files = ['README.md', ...walk('docs'), ...walk('fixtures')];
  const hits = files.flatMap((f) => fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').map((l, i) => (/\.\.\/shared|DESIGN\.md|GAPS\.md/.test(l) ? `${f}:${i + 1}` : '')).filter(Boolean));
  assert.deepEqual(hits, []);
  for (const f of ['README.md', 'docs/ARCHITECTURE.md']) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    assert.ok(text.includes(SPEC_TITLE), `${f} names the specification by its title`);
    assert.match(text, /\(?(docs\/)?decisions\.md/, `${f} points at docs/decisions.md`);
  }
});

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    return e.isDirectory() ? walk(rel) : /\.(md|json|ya?ml|txt)$/.test(e.name) ? [rel] : [];
  });
}
