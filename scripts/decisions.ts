// docs/decisions.md and the clause catalogue kept in step: the decisions (G and D ids) the page has, the ones each clause's source names, and each section's generated "Clauses:" line.
// Usage: node --import tsx scripts/decisions.ts [--write] (without --write: prints the lines that differ; exit 1 when any does).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { loadClauses } from '../lib/catalogue.js';

export const DECISIONS_DOC = path.join(ROOT, 'docs', 'decisions.md');

/** A decision id as sources and comments write it: G (a gap of the specification) or D (a decision of the harness) and a number. */
const ID = /\b([GD]\d+)\b/g;

/** The ids the page has: one `<a id="g1"></a>` anchor and `## G1 ...` heading per section, in the page's order. */
export function decisionIds(doc = fs.readFileSync(DECISIONS_DOC, 'utf8')): string[] {
  return [...doc.matchAll(/^## ([GD]\d+) /gm)].map((m) => m[1]!);
}

/** The decision ids a clause source names (`docs/decisions.md G10, D3; ...`). */
export const namedIn = (source: string): string[] => [...new Set([...source.matchAll(ID)].map((m) => m[1]!))];

/** For each decision id: the clauses whose source names it, sorted. */
export function clausesByDecision(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of loadClauses()) for (const id of namedIn(c.source ?? '')) out.set(id, [...(out.get(id) ?? []), c.id]);
  for (const list of out.values()) list.sort();
  return out;
}

/** The page with every section's `Clauses:` line as the catalogue makes it (`none` for a decision no source names). */
export function withClauseLines(doc = fs.readFileSync(DECISIONS_DOC, 'utf8')): string {
  const by = clausesByDecision();
  let current = '';
  return doc.split('\n').map((line) => {
    const heading = /^## ([GD]\d+) /.exec(line);
    if (heading) current = heading[1]!;
    if (!line.startsWith('Clauses: ') || !current) return line;
    const list = by.get(current);
    return `Clauses: ${list?.length ? list.join(', ') : 'none'}.`;
  }).join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]).replace(/\.[jt]s$/, '') === path.join(ROOT, 'scripts', 'decisions')) {
  const doc = fs.readFileSync(DECISIONS_DOC, 'utf8');
  const fresh = withClauseLines(doc);
  if (process.argv.includes('--write')) {
    fs.writeFileSync(DECISIONS_DOC, fresh);
    console.log(`docs/decisions.md: ${decisionIds(fresh).length} decisions, Clauses lines written`);
  } else {
    const old = doc.split('\n');
    const stale = fresh.split('\n').filter((l, i) => l !== old[i]);
    for (const l of stale) console.log(`should be: ${l}`);
    process.exitCode = stale.length ? 1 : 0;
  }
}
