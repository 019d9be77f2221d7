// Helpers of the REST people checks: own probe operators (tests never share mutable rows), page walking, ids that exist nowhere.
import { randomUUID } from 'node:crypto';
import { expect, type Api } from '../fixtures/target.js';
import { notJudgedIf, step, under } from '../verdicts.js';

/** An id no target is expected to have (the spec's ids are integers). */
export const ABSENT_ID = 2_000_000_001;

/** A short unique token, so parallel tests and repeated runs never collide. */
export const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);

/** The fields of a new operator of our own; e-mails end in @probe.example so they are recognisable. */
export function probeFields(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const u = unique();
  return { name: `Probe${u}`, first_name: 'Ces', email: `ces-${u}@probe.example`, external_id: `ces-probe-${u}`, ...extra };
}

/**
 * Creates an operator with the default key (or `key`) and returns the created resource: a set-up step judged under the clause of
 * the call it makes (REST-OP-05, meta.status being the contract of G10), whatever check uses it.
 */
export function createOperator(api: Api, extra: Record<string, unknown> = {}, key?: string): Promise<Record<string, any>> {
  return step('REST-OP-05', 'POST /operator (an operator of the check)', async () => {
    const res = await api.rest({ method: 'POST', path: '/operator', json: probeFields(extra), key });
    expect(res.json?.meta?.status, `creating a probe operator failed: ${res.text}`).toBe('success');
    expect(typeof res.json?.data?.id).toBe('number');
    return res.json.data;
  });
}

/** Every item of a list, walking pages of 100 (the maximum). */
export async function allItems(api: Api, path: string, opts: { key?: string; base?: 'sd' | 'ha' } = {}): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await api.rest({ path: `${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`, key: opts.key, base: opts.base });
    expect(res.json?.meta?.status, `listing ${path} failed: ${res.text}`).toBe('success');
    out.push(...res.json.data);
    if (page >= res.json.pagination.pages || res.json.data.length === 0) return out;
  }
}

/** The first item of a list (the target must hold at least one). */
export async function firstItem(api: Api, path: string, key?: string): Promise<any> {
  const res = await api.rest({ path: `${path}${path.includes('?') ? '&' : '?'}limit=1&full=1`, key });
  expect(res.json?.meta?.status, `listing ${path}: ${res.status} ${res.text.slice(0, 200)}`).toBe('success');
  notJudgedIf(!res.json?.data?.length, `${path} lists nothing: the check needs at least one row of the target`);
  return res.json.data[0];
}

export { otherKey, ownClientId } from '../fixtures/target.js';

/** The people list resources, their schema names, and the spec's resource word of the unknown-id text. */
export const PEOPLE = ['client', 'website', 'operator', 'group', 'skill', 'visitor'] as const;

/**
 * A refusal as the spec describes one: meta.status fail or error with a message (data may accompany it: the spec does not forbid
 * it). Its HTTP status (a 4xx, `status` exactly when given) and meta.status `fail` for a refused input are decisions G10:
 * judged under `g10Clause` when the check's own clauses are spec clauses (G34), else with the check's own (REF) clauses.
 */
export function expectFail(res: { status: number; json: any; text: string }, status?: number, g10Clause?: string): void {
  expect(['fail', 'error'], `expected a refusal (meta.status fail or error), got ${res.status} ${res.text.slice(0, 300)}`).toContain(res.json?.meta?.status);
  expect(typeof res.json?.meta?.message, 'a refusal carries meta.message').toBe('string');
  expect(res.json.meta.message.length, 'meta.message is not empty').toBeGreaterThan(0);
  const g10 = () => {
    expect(res.json.meta.status, 'G10: a refused input answers meta.status fail').toBe('fail');
    expect(res.status, 'G10: a refusal is a 4xx, never a 5xx').toBeGreaterThanOrEqual(400);
    expect(res.status, 'G10: a refusal is a 4xx, never a 5xx').toBeLessThan(500);
    if (status) expect(res.status, `G10: this refusal answers ${status}`).toBe(status);
  };
  if (g10Clause) under(g10Clause, g10); else g10();
}

/** A resource without its deprecated operator_list, which parallel checks change by creating operators (compare the rest exactly). */
export function withoutOperatorList(x: Record<string, any>): Record<string, any> {
  const { operator_list: _ignored, ...rest } = x;
  return rest;
}
