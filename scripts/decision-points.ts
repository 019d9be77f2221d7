// Counts the deviation decision points of reference-impl/ (issue 15: at most 60, in at most 15 files): every branch on deviation state,
// whatever it is called. A value the policy supplies (a limit, a text, a delay, a function) is not a branch; a flag is.
// Usage: node --import tsx scripts/decision-points.ts [--list]
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { buildPolicies } from '../reference-impl/policies.js';
import { deviationRegistry } from '../lib/deviation-registry.js';

const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const p = path.join(dir, e.name);
  return e.isDirectory() ? files(p) : /\.(ts|js)$/.test(e.name) ? [p] : [];
});

/** Boolean fields of the area policies, and the page flags of the console (branched on in the pages' scripts). */
function flagNames(): string[] {
  const out = new Set<string>();
  for (const policy of Object.values(buildPolicies([]))) {
    for (const [k, v] of Object.entries(policy)) {
      if (typeof v === 'boolean') out.add(k);
      if (v && typeof v === 'object' && !Array.isArray(v)) for (const [kk, vv] of Object.entries(v)) if (typeof vv === 'boolean') out.add(kk);
    }
  }
  return [...out];
}

export function decisionPoints(): Array<{ file: string; line: number; text: string; why: string }> {
  const flags = flagNames();
  const flagRe = new RegExp(`\\.(${flags.join('|')})\\b`);
  const ids = [...deviationRegistry().keys()];
  const out: Array<{ file: string; line: number; text: string; why: string }> = [];
  for (const file of files(path.join(ROOT, 'reference-impl'))) {
    if (file.endsWith('policy.ts') || file.endsWith('policies.ts')) continue; // definitions, not branches
    fs.readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
      if (/^\s*(\/\/|\*|\/\*\*)/.test(text)) return;
      const why = flagRe.test(text) ? 'policy flag'
        : /\bpolicy\.\w+\s*[<>]=?\s*0\b|\bif \(!?policy\.\w+\)/.test(text) ? 'policy value tested'
        : /\.has\(\s*['"]/.test(text) && ids.some((id) => text.includes(id)) ? 'deviation id'
        : /edits\.length|ignored\.includes\(/.test(text) ? 'seam: deviation data tested'
        : /\bvariant\.(projectsAsList|noDescriptions|noRoutingRule)\b/.test(text) ? 'schema variant flag'
        : /\bignoreExpiry\b/.test(text) && !flagRe.test(text) ? 'option of a deviation' : '';
      if (why) out.push({ file: path.relative(ROOT, file), line: i + 1, text: text.trim().slice(0, 140), why });
    });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dps = decisionPoints();
  const byFile = new Map<string, number>();
  for (const d of dps) byFile.set(d.file, (byFile.get(d.file) ?? 0) + 1);
  if (process.argv.includes('--list')) for (const d of dps) console.log(`${d.file}:${d.line} [${d.why}] ${d.text}`);
  for (const [f, n] of [...byFile].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(3)}  ${f}`);
  console.log(`${dps.length} decision points in ${byFile.size} files (target: at most 60 in at most 15)`);
  process.exit(dps.length <= 60 && byFile.size <= 15 ? 0 : 1);
}
