// Counts the deviation decision points of the reference implementation (issue 26 item 2: at most 60, in at most 15 files, however many
// deviations exist): every line, in any file the service loads (policy files and lib/ included) or serves to a page, that reads deviation
// state or holds a variant's own logic.
// Usage: node --import tsx scripts/decision-points.ts [--list]
//
// What counts as a decision point (one per line):
// - a read of a flag: a policy member whose default is a boolean or "nothing" ('', [], null, undefined, no limit: Infinity): with the
//   spec's value such a member selects no behaviour of its own, so every place that reads it is a fork (the console pages' `flags.*` too);
// - a read or a body of a function-valued policy member (a swapped function is a branch by another name);
// - an edit applied at a seam: `.edits(`, `.edited(`, `applyEdits(` (outside lib/json-edit.ts, which defines the edit language);
// - a read of the deviations switched on or of a deviation's id (`.list()`, `.has('<id>')`).
// A named value (a limit, a timing, a text, a table of the spec: `policy.pageMax`, `policy.periodWindows`) is not a decision point: the
// same code computes with the spec's value and with a deviation's. The mechanism that keeps and hands out deviation state
// (reference-impl/deviations.ts, reference-impl/policies.ts, lib/deviation-registry.ts, lib/json-edit.ts, lib/catalogue.ts) is not
// counted: it names no seam's meaning and holds no variant; each use of it is.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { buildPolicies } from '../reference-impl/policies.js';
import { deviationRegistry } from '../lib/deviation-registry.js';

export const LIMIT = { points: 60, files: 15 } as const;

/** The mechanism of deviations: keeps the state and applies edits it is given; never a fork of its own. */
const MECHANISM = ['reference-impl/deviations.ts', 'reference-impl/policies.ts', 'lib/deviation-registry.ts', 'lib/json-edit.ts', 'lib/catalogue.ts'];

/** Every TypeScript file the service loads: the value imports reachable from app.ts and stack.ts (the fakes excluded: they are partners). */
export function loadedFiles(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !fs.existsSync(file)) return;
    seen.add(file);
    const src = fs.readFileSync(file, 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)) {
      if (m[1]) continue;
      const target = path.resolve(path.dirname(file), m[2]!.replace(/\.js$/, '.ts'));
      if (!/\/(fake-connector|webhook-sink)\//.test(target)) visit(target);
    }
  };
  for (const entry of ['reference-impl/app.ts', 'reference-impl/stack.ts']) visit(path.join(ROOT, entry));
  return [...seen].sort();
}

/** The scripts of the console pages (they read the flags the console sends them). */
function pageFiles(): string[] {
  const dir = path.join(ROOT, 'reference-impl/console/public');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => path.join(dir, f));
}

const isNothing = (v: unknown) => v === '' || v === null || v === undefined || v === Infinity || (Array.isArray(v) && v.length === 0);

/** Policy members that fork behaviour (flags and "nothing" defaults) and those that are functions. */
export function forkMembers(): { flags: string[]; functions: string[] } {
  const flags = new Set<string>();
  const functions = new Set<string>();
  for (const policy of Object.values(buildPolicies([]))) {
    for (const [k, v] of Object.entries(policy)) {
      if (typeof v === 'function') functions.add(k);
      else if (typeof v === 'boolean' || isNothing(v)) flags.add(k);
    }
  }
  return { flags: [...flags], functions: [...functions] };
}

export interface DecisionPoint { file: string; line: number; text: string; why: string }

export function decisionPoints(): DecisionPoint[] {
  const { flags, functions } = forkMembers();
  const flagRe = flags.length ? new RegExp(`\\.(${flags.join('|')})\\b`) : null;
  const fnRe = functions.length ? new RegExp(`\\b(${functions.join('|')})\\b`) : null;
  const ids = [...deviationRegistry().keys()];
  const out: DecisionPoint[] = [];
  const files = [...loadedFiles(), ...pageFiles()].filter((f) => !MECHANISM.includes(path.relative(ROOT, f)));
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    const isPage = rel.startsWith('reference-impl/console/public/');
    fs.readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      if (/^\s*(\/\/|\*|\/\*\*)/.test(text)) return;
      const why = flagRe?.test(text) ? 'flag read'
        : isPage && /\bflags\.\w+/.test(text) ? 'page flag read'
        : fnRe?.test(text) ? 'function member (read or variant body)'
        : /\.edits\(|\.edited\(|\bapplyEdits\(/.test(text) && !/export function applyEdits/.test(text) ? 'edit applied at a seam'
        : /\bdeviations\.list\(\)|\bdeviations\.has\(/.test(text) || ids.some((id) => text.includes(`'${id}'`) || text.includes(`"${id}"`)) ? 'deviation state read' : '';
      if (why) out.push({ file: rel, line: i + 1, text: text.trim().slice(0, 140), why });
    });
  }
  return out;
}

/** Decision points per file, most first. */
export function byFile(dps: DecisionPoint[]): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const d of dps) m.set(d.file, (m.get(d.file) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dps = decisionPoints();
  const files = byFile(dps);
  if (process.argv.includes('--list')) for (const d of dps) console.log(`${d.file}:${d.line} [${d.why}] ${d.text}`);
  for (const [f, n] of files) console.log(`${String(n).padStart(3)}  ${f}`);
  console.log(`${dps.length} decision points in ${files.length} files (at most ${LIMIT.points} in at most ${LIMIT.files})`);
  process.exit(dps.length <= LIMIT.points && files.length <= LIMIT.files ? 0 : 1);
}
