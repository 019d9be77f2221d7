// The clause catalogue and the deviation list (fixtures/clauses, fixtures/deviations): ids, severities, texts, sources.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './paths.js';

export type Severity = 'MUST' | 'SHOULD' | 'MAY' | 'REF';
export interface Clause { id: string; severity: Severity; text: string; source: string; area: string; retired?: boolean }
export interface Deviation { id: string; clauses: string[]; description: string; area: string }

function readArea<T>(dir: string): T[] {
  const full = path.join(FIXTURES, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full).filter((f) => f.endsWith('.json')).sort().flatMap((f) => {
    const area = f.replace(/\.json$/, '');
    const rows = JSON.parse(fs.readFileSync(path.join(full, f), 'utf8')) as Array<Omit<T, 'area'>>;
    return rows.map((r) => ({ area, ...r }) as T);
  });
}

let clauses: Clause[] | undefined;
let deviations: Deviation[] | undefined;

export function loadClauses(): Clause[] { return (clauses ??= readArea<Clause>('clauses')); }
export function loadDeviations(): Deviation[] { return (deviations ??= readArea<Deviation>('deviations')); }
export function clauseById(): Map<string, Clause> { return new Map(loadClauses().map((c) => [c.id, c])); }
export function deviationIds(): Set<string> { return new Set(loadDeviations().map((d) => d.id)); }
