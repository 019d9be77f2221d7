// The clause catalogue and the deviation list (fixtures/clauses, fixtures/deviations): ids, severities, texts, sources.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './paths.js';

export type Severity = 'MUST' | 'SHOULD' | 'MAY' | 'REF';
export interface Clause { id: string; severity: Severity; text: string; source: string; area: string; retired?: boolean }
/**
 * `alternative`: another decision a conforming service may take where the spec is silent (G34); it must make its REF
 * clauses report and fail no MUST or SHOULD clause of its suites (`ces selftest`). Absent: a fault the checks must catch.
 */
export type DeviationKind = 'alternative';
export interface Deviation { id: string; clauses: string[]; description: string; area: string; kind?: DeviationKind }

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
/** Whether a deviation is another conforming decision rather than a fault. */
export const isAlternative = (d: { kind?: string }): boolean => d.kind === 'alternative';
