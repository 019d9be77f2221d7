// The proof of each clause: what showed that its checks can fail. A clause is proven when, under a deviation of the reference implementation, a fault on the wire, or a variant of a partner, an assertion of that clause itself failed; or by a project test; the few that cannot be proven are listed with the reason.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './paths.js';
import type { Clause, Deviation } from './catalogue.js';

/**
 * A partner variant (a connector or receiver with one mistake): the MUST clauses a `ces check` of it fails, asserted by the test
 * of file `test` whose name holds `name` (a node:test name, a subtest's included).
 */
export interface PartnerVariant { id: string; side: 'connector' | 'receiver'; what: string; fails: string[]; test: string; name: string }
/** A project test that proves clauses no deviation can (a load threshold crossed under a deviation): file `test`, named with `name`. */
export interface ProjectTest { clauses: string[]; test: string; name: string; what: string }
/** A MUST clause no deviation, wire fault or variant can break, with the reason (at most MAX_EXCEPTIONS, listed in the README). */
export interface ProofException { clause: string; reason: string }
export interface ProofRecord { partnerVariants: PartnerVariant[]; projectTests: ProjectTest[]; exceptions: ProofException[] }

/** At most this many MUST clauses may stand without a proof (issue 24). */
export const MAX_EXCEPTIONS = 5;
export const PROOFS_FILE = path.join(FIXTURES, 'proofs.json');

/** The record of the proofs that are not a deviation's (fixtures/proofs.json): partner variants, project tests, exceptions. */
export function loadProofRecord(file = PROOFS_FILE): ProofRecord {
  const r = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ProofRecord>;
  return { partnerVariants: r.partnerVariants ?? [], projectTests: r.projectTests ?? [], exceptions: r.exceptions ?? [] };
}

/** A unit test that passed in a run of the unit-test step (scripts/unit-tests.mjs writes them, CES_UNIT_PASSED). */
export interface UnitTestPass { file: string; name: string }

/** The environment variable naming the file of the unit tests that passed in this run (`npm test`: scripts/test.sh sets it). */
export const UNIT_PASSED_ENV = 'CES_UNIT_PASSED';

/** The unit tests that passed in this run, from the file CES_UNIT_PASSED names; undefined without one (run alone). */
export function readUnitPasses(file = process.env[UNIT_PASSED_ENV]): UnitTestPass[] | undefined {
  if (!file || !fs.existsSync(file)) return undefined;
  try { return (JSON.parse(fs.readFileSync(file, 'utf8')) as { passed: UnitTestPass[] }).passed; } catch { return undefined; }
}

/**
 * The record's entries whose test passed in this run (`passed`): only they prove anything (a variant whose test was not run, or
 * failed, is no proof); the others are `unconfirmed`, each as `id: test › name`.
 */
export function confirmedRecord(record: ProofRecord, passed: UnitTestPass[] | undefined): { record: ProofRecord; unconfirmed: string[] } {
  const ran = (e: { test: string; name: string }) => !!passed?.some((p) => p.file === e.test && p.name.includes(e.name));
  const unconfirmed = [
    ...record.partnerVariants.filter((v) => !ran(v)).map((v) => `${v.id}: ${v.test} › ${v.name}`),
    ...record.projectTests.filter((t) => !ran(t)).map((t) => `${t.clauses.join(', ')}: ${t.test} › ${t.name}`),
  ];
  return { record: { ...record, partnerVariants: record.partnerVariants.filter(ran), projectTests: record.projectTests.filter(ran) }, unconfirmed };
}

/** A deviation's or wire fault's outcome in a self-test run (summary.json `mutations` / `wireFaults`). */
export interface ProvingRun {
  mutations?: Array<{ deviation: string; clauses: string[]; caught: boolean; failedClauses?: string[] }>;
  wireFaults?: Array<{ fault: string; clauses: string[]; caught: boolean; failedClauses?: string[] }>;
}

export interface ClauseProof {
  /** Deviations under which an assertion of this clause itself failed. */
  deviations: string[];
  /** Deviations naming this clause that ran without an assertion of this clause failing (caught by another clause, or missed). */
  notByItself: string[];
  /** Deviations naming this clause that the self-test run did not include. */
  notRun: string[];
  /** Wire faults under which an assertion of this clause itself failed (`ces selftest --wire`). */
  wire: string[];
  variants: string[];
  projectTests: string[];
  exception?: string;
}

/** The clauses whose own assertions failed under one mutation (a run before per-clause records: every clause, when caught). */
const ownFailures = (m: { clauses: string[]; caught: boolean; failedClauses?: string[] }) => m.failedClauses ?? (m.caught ? m.clauses : []);

/** Per clause, its proofs: from the deviations of the catalogue, a self-test run (deviations and wire faults) and the record. */
export function clauseProofs(catalogue: Clause[], deviations: Deviation[], run: ProvingRun | undefined, record: ProofRecord): Map<string, ClauseProof> {
  const out = new Map<string, ClauseProof>(catalogue.map((c) => [c.id, { deviations: [], notByItself: [], notRun: [], wire: [], variants: [], projectTests: [] }]));
  const at = (id: string) => out.get(id);
  const ran = new Map((run?.mutations ?? []).map((m) => [m.deviation, m]));
  for (const d of deviations) for (const c of d.clauses) {
    const p = at(c);
    if (!p) continue;
    const m = ran.get(d.id);
    if (!m) p.notRun.push(d.id);
    else if (ownFailures(m).includes(c)) p.deviations.push(d.id);
    else p.notByItself.push(d.id);
  }
  for (const w of run?.wireFaults ?? []) for (const c of ownFailures(w)) at(c)?.wire.push(w.fault);
  for (const v of record.partnerVariants) for (const c of v.fails) at(c)?.variants.push(v.id);
  for (const t of record.projectTests) for (const c of t.clauses) at(c)?.projectTests.push(t.test);
  for (const e of record.exceptions) { const p = at(e.clause); if (p) p.exception = e.reason; }
  return out;
}

/** Whether a clause has a proof of its own (an exception is not a proof). */
export const isProven = (p: ClauseProof | undefined) => !!p && p.deviations.length + p.wire.length + p.variants.length + p.projectTests.length > 0;

/** MUST clauses (not retired) with no proof and no listed exception. */
export function unprovenMust(catalogue: Clause[], proofs: Map<string, ClauseProof>): Clause[] {
  return catalogue.filter((c) => !c.retired && c.severity === 'MUST' && !isProven(proofs.get(c.id)) && proofs.get(c.id)?.exception === undefined);
}

/** One line of a clause's proofs, for `ces selftest --list` and the landing page's title text. */
export function proofLine(p: ClauseProof | undefined): string {
  if (!p) return 'no proof';
  const parts = [
    p.deviations.length ? `deviation ${p.deviations.join(', ')}` : '',
    p.wire.length ? `wire ${p.wire.join(', ')}` : '',
    p.variants.length ? `partner variant ${p.variants.join(', ')}` : '',
    p.projectTests.length ? `project test ${[...new Set(p.projectTests)].join(', ')}` : '',
  ].filter(Boolean);
  if (parts.length) return parts.join('; ');
  if (p.exception) return `exception: ${p.exception}`;
  const pending = [p.notRun.length ? `not run: ${p.notRun.join(', ')}` : '', p.notByItself.length ? `caught by another clause or missed: ${p.notByItself.join(', ')}` : ''].filter(Boolean);
  return `no proof${pending.length ? ` (${pending.join('; ')})` : ''}`;
}
