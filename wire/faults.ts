// Wire faults (fixtures/wire-faults.json): what the mutating proxy changes between the service and one partner, each naming the clause it breaks; the catalogue's reader and its pure edits.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { FIXTURES } from '../lib/paths.js';
import { applyEdits, editError, type JsonEdit } from '../lib/json-edit.js';
import { sign } from '../lib/signature.js';

export const WIRE_FAULTS_FILE = path.join(FIXTURES, 'wire-faults.json');
export const PARTNERS = ['connector', 'sink'] as const;
export type Partner = (typeof PARTNERS)[number];

/**
 * Which calls a fault touches; every given field must match. Connector: `endpoint` (the fake connector's names), `role` of an
 * endpoint-7 message, `occurrence` (the n-th call of that endpoint in one conversation, or for one bot operator outside one).
 * Sink: `eventType`, `channel` (the payload's), `attempt` (the n-th attempt of one event, by correlation id), `occurrence` (the
 * n-th event of that kind about one subject: conversation, user or visitor; first attempts only), `answered` (the partner's
 * answer status, for `repeat` and answer edits).
 */
export interface WireWhere {
  endpoint?: string[]; role?: 'visitor' | 'operator'; occurrence?: number[];
  /** Every n-th occurrence (2: the second, fourth, ... call). */
  every?: number;
  eventType?: string[]; channel?: string[]; attempt?: number[]; answered?: number[];
}

/** A JSON edit of lib/json-edit.ts, or one the wire adds: `push` appends a value to the array at `at`; `merge` adds keys to each object at `at`. */
export type WireEdit = JsonEdit | { at: string; push: unknown } | { at: string; merge: Record<string, unknown> };

/**
 * How the changed request is signed: by default correctly again (with the secret the proxy was given), so a fault breaks one
 * clause only; or over other bytes, as a service signing wrongly would.
 */
export const SIGN_MODES = ['query-with-mark', 'empty-bytes', 'other-secret', 'uppercase-hex', 'no-prefix', 'pretty-body', 'none'] as const;
export type SignMode = (typeof SIGN_MODES)[number];

export interface HeaderEdit { name: string; drop?: true; set?: string; from?: 'new-uuid' | 'first-attempt' }
export interface QueryEdit { param: string; drop?: true; set?: string }

export interface WireFault {
  id: string;
  clauses: string[];
  description: string;
  partner: Partner;
  where?: WireWhere;
  /** What reaches the partner instead of what the service sent (re-signed unless `sign` says otherwise). */
  request?: { query?: QueryEdit[]; body?: WireEdit[]; headers?: HeaderEdit[]; sign?: SignMode; delayMs?: number };
  /** Not forwarded: the proxy answers the service itself (`{{now}}`, `{{idOperator}}`, `{{idConversation}}` filled in). */
  drop?: { status: number; body?: unknown };
  /** What reaches the service instead of the partner's answer: `status` pairs [from, to], edits of its JSON body. */
  answer?: { status?: Array<[number, number]>; body?: WireEdit[] };
  /** The request is sent to the partner again this long after the partner answered it (sink: with a new X-Service-Delivery). */
  repeat?: { afterMs: number };
  /** The pattern of issue 29 this fault shows fixed: what let it pass before the checks judged the wire. */
  missedBefore?: string;
}

/** Problems of one catalogue entry (the catalogue test and the proxy's start refuse a malformed one). */
export function faultProblems(f: unknown, clauseIds: Set<string>): string[] {
  const x = f as Partial<WireFault>;
  const out: string[] = [];
  if (!x || typeof x !== 'object') return ['a wire fault is an object'];
  if (typeof x.id !== 'string' || !/^wire-[a-z0-9-]+$/.test(x.id)) out.push(`id ${JSON.stringify(x.id)}: "wire-" and lowercase words`);
  if (!Array.isArray(x.clauses) || !x.clauses.length) out.push(`${x.id}: clauses: a non-empty list`);
  for (const c of x.clauses ?? []) if (!clauseIds.has(c)) out.push(`${x.id}: clause ${c} is not in the catalogue`);
  if (typeof x.description !== 'string' || !x.description) out.push(`${x.id}: description`);
  if (!PARTNERS.includes(x.partner as Partner)) out.push(`${x.id}: partner is one of ${PARTNERS.join(', ')}`);
  if (!x.request && !x.drop && !x.answer && !x.repeat) out.push(`${x.id}: changes nothing (give request, drop, answer or repeat)`);
  if (x.request?.sign && !SIGN_MODES.includes(x.request.sign)) out.push(`${x.id}: sign is one of ${SIGN_MODES.join(', ')}`);
  for (const e of [...(x.request?.body ?? []), ...(x.answer?.body ?? [])]) {
    const err = 'push' in e || 'merge' in e ? (typeof e.at === 'string' ? null : '"at" is a dotted path') : editError(e);
    if (err) out.push(`${x.id}: edit ${JSON.stringify(e)}: ${err}`);
  }
  return out;
}

/** The catalogue of wire faults, validated against the clause ids given. */
export function loadWireFaults(clauseIds?: Set<string>, file = WIRE_FAULTS_FILE): WireFault[] {
  const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as WireFault[];
  if (clauseIds) {
    const problems = rows.flatMap((r) => faultProblems(r, clauseIds));
    const seen = new Set<string>();
    for (const r of rows) { if (seen.has(r.id)) problems.push(`${r.id}: listed twice`); seen.add(r.id); }
    if (problems.length) throw new Error(`${file}: ${problems.join('; ')}`);
  }
  return rows;
}

/** Applies wire edits in order (changed in place) and returns the document. */
export function applyWireEdits<T>(doc: T, edits: readonly WireEdit[]): T {
  let root: unknown = doc;
  for (const e of edits) {
    if ('push' in e || 'merge' in e) {
      for (const node of nodesAt(root, e.at)) {
        if ('push' in e && Array.isArray(node)) node.push(structuredClone(e.push));
        if ('merge' in e && node && typeof node === 'object' && !Array.isArray(node)) Object.assign(node, structuredClone(e.merge));
      }
    } else root = applyEdits(root, [e]);
  }
  return root as T;
}

/** The values a dotted path points at (`*` every item; `$` the root). */
function nodesAt(root: unknown, at: string): unknown[] {
  if (at === '$') return [root];
  let level: unknown[] = [root];
  for (const step of at.split('.')) {
    level = level.flatMap((n) => (!n || typeof n !== 'object' ? [] : step === '*' ? Object.values(n as object) : [(n as Record<string, unknown>)[step]]));
  }
  return level;
}

/** A query string with the edits applied, keeping the order and spelling of the parameters left alone. */
export function editQuery(raw: string, edits: readonly QueryEdit[]): string {
  const params = new URLSearchParams(raw);
  for (const e of edits) {
    if (e.drop) params.delete(e.param);
    else if (e.set !== undefined) params.set(e.param, e.set);
  }
  return params.toString();
}

/** The X-Service-Signature value for `bytes` under a sign mode (undefined: send no header). */
export function signatureFor(mode: SignMode | 'correct', secret: string, bytes: string | Buffer, method: string): string | undefined {
  switch (mode) {
    case 'correct': return sign(secret, bytes);
    case 'query-with-mark': return sign(secret, method === 'GET' ? `?${bytes.toString()}` : Buffer.concat([Buffer.from(bytes), Buffer.from('\n')]));
    case 'empty-bytes': return sign(secret, '');
    case 'other-secret': return sign(`${secret}-other`, bytes);
    case 'uppercase-hex': return 'sha256=' + sign(secret, bytes).slice(7).toUpperCase();
    case 'no-prefix': return sign(secret, bytes).slice(7);
    case 'pretty-body': {
      try { return sign(secret, JSON.stringify(JSON.parse(bytes.toString()), null, 2)); } catch { return sign(secret, `${bytes.toString()} `); }
    }
    case 'none': return undefined;
  }
}

/** A drop answer's body with its placeholders filled. */
export function fillTemplate(body: unknown, ctx: { idOperator?: string; idConversation?: string }): unknown {
  const now = new Date().toISOString();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace('{{now}}', now).replace('{{idOperator}}', ctx.idOperator ?? '').replace('{{idConversation}}', ctx.idConversation ?? '').replace('{{uuid}}', randomUUID());
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(body);
}
