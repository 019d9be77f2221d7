// Compares two `ces selftest --matrix` files: every deviation of BEFORE must be caught in AFTER by at least the checks that caught it before.
// Usage: node --import tsx scripts/compare-selftest-matrix.ts BEFORE AFTER [--present-only]   (exit 1 when a check stopped catching)
import fs from 'node:fs';

/** deviation → the checks that caught it and the clauses whose own assertions failed (older matrices: the checks only). */
type Entry = string[] | { checks: string[]; clauses: string[] };
type Matrix = Record<string, Entry>;
const checksOf = (e: Entry | undefined) => (Array.isArray(e) ? e : e?.checks ?? []);
const clausesOf = (e: Entry | undefined) => (Array.isArray(e) ? undefined : e?.clauses);

/** What AFTER lost against BEFORE: deviations no longer run, and per deviation the checks that no longer catch it. */
export function matrixLosses(before: Matrix, after: Matrix, presentOnly = false): string[] {
  const out: string[] = [];
  for (const [id, entry] of Object.entries(before)) {
    if (!(id in after)) { if (!presentOnly) out.push(`${id}: not in the new matrix`); continue; }
    const now = checksOf(after[id]);
    if (!now.length) { out.push(`${id}: caught by no check any more`); continue; }
    // Both matrices know the clauses that caught: compared by clause; else by check.
    const [was, is] = [clausesOf(entry), clausesOf(after[id])];
    const lost = was && is ? was.filter((c) => !is.includes(c)) : checksOf(entry).filter((c) => !now.includes(c));
    if (lost.length) out.push(`${id}: no longer caught by ${lost.join(' | ')}`);
  }
  return out;
}

const totals = (m: Matrix) => `${Object.keys(m).length} deviations, ${Object.values(m).filter((e) => checksOf(e).length).length} caught, ${Object.values(m).reduce((n, e) => n + checksOf(e).length, 0)} (deviation, check) pairs`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [beforeFile, afterFile] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (!beforeFile || !afterFile) {
    console.error('usage: compare-selftest-matrix.ts BEFORE.json AFTER.json [--present-only]');
    process.exit(2);
  }
  const before = JSON.parse(fs.readFileSync(beforeFile, 'utf8')) as Matrix;
  const after = JSON.parse(fs.readFileSync(afterFile, 'utf8')) as Matrix;
  console.log(`before: ${totals(before)}\nafter:  ${totals(after)}`);
  const losses = matrixLosses(before, after, process.argv.includes('--present-only'));
  for (const l of losses) console.log(`  LOST ${l}`);
  console.log(losses.length ? `${losses.length} deviation(s) lost checks` : 'every deviation is caught by at least the checks that caught it before');
  process.exit(losses.length ? 1 : 0);
}
