// A small client playing the service against a bot connector: every call carries idConnectorVersion and idWebsite and the G2 signature, and is recorded with its timing.
import { randomUUID } from 'node:crypto';
import { sign, SIGNATURE_HEADER } from '../lib/signature.js';
import type { HttpAnswer, HttpRequest } from '../lib/http.js';
import type { ConnectorCheckSettings } from './settings.js';
import { RULE_LABELS } from './settings.js';
import { transportCause } from './preflight.js';
import { excerpt } from './evidence.js';
import type { Endpoint, Exchange, SignatureMode } from './exchange.js';

// The types of a recorded call live in check/exchange.ts (check/evidence.ts reads them without importing this module).
export type { Endpoint, SignatureMode, Exchange } from './exchange.js';

/** Sends one request (suites pass `api.request`, which attaches the masked evidence as a report step). */
export type Send = (req: HttpRequest, label?: string) => Promise<HttpAnswer>;

/** The spec endpoint a call is, from its method and its path under the connector's base URL (0: none of the contract). */
export function endpointOf(method: string, path: string): Endpoint {
  if (method === 'GET' && path === '/external-bots') return 1;
  if (method === 'PUT' && /^\/bots\/[^/]+$/.test(path)) return 2;
  if (method === 'GET' && /^\/bots\/[^/]+$/.test(path)) return 3;
  if (method === 'GET' && path === '/availability-strategies') return 4;
  if (method === 'GET' && /^\/bots\/[^/]+\/conversation-first-messages$/.test(path)) return 5;
  if (method === 'POST' && path === '/conversations') return 6;
  if (method === 'POST' && /^\/conversations\/[^/]+\/messages$/.test(path)) return 7;
  return 0;
}

export interface CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  signature?: SignatureMode;
  timeoutMs: number;
  label?: string;
  /** Cancels the call (it is then recorded as one without answer). */
  signal?: AbortSignal;
}

export interface DistributionRule { id: string; label: string }
export interface BotWriteBody { name: string; pseudo: string; language: string; distributionRules: DistributionRule[]; external: { idBot: string } }

/** What the client tells its owner: a bot it created (to remove at the end), a call that got no answer (partner gone?). */
export interface ClientHooks { botCreated?(idOperator: string): void; noAnswer?(ex: Exchange): Promise<void> | void }

export class ConnectorClient {
  constructor(readonly settings: ConnectorCheckSettings, private readonly send: Send, private readonly hooks: ClientHooks = {}) {}

  /** The query string every call carries (endpoint 4 adds idOperator first, as the spec lists it). */
  query(extra: Record<string, string> = {}): string {
    return new URLSearchParams({ ...extra, idConnectorVersion: this.settings.connectorVersion, idWebsite: this.settings.website }).toString();
  }

  async call(endpoint: Endpoint, method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, opts: CallOptions): Promise<Exchange> {
    const rawQuery = this.query(opts.query);
    const url = `${this.settings.url}${path}?${rawQuery}`;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    // G2: POST/PUT sign the raw body, GET (and a body-less DELETE) the raw query string (without `?`).
    const signed = method === 'GET' || method === 'DELETE' ? rawQuery : (body ?? '');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // --unsigned (a connector under development): no call carries a signature.
    const mode = this.settings.unsigned ? 'missing' : opts.signature ?? 'valid';
    if (mode === 'valid') headers[SIGNATURE_HEADER] = sign(this.settings.secret, signed);
    if (mode === 'wrong') headers[SIGNATURE_HEADER] = sign(this.settings.secret, signed + '#not-these-bytes');
    const ex: Exchange = { endpoint, method, path, url, signed, requestBody: opts.body, ms: 0, ...(mode !== 'valid' ? { signature: mode } : {}) };
    const started = performance.now();
    try {
      const res = await this.send({ method, url, headers, body, timeoutMs: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) }, opts.label ?? `endpoint ${endpoint}: ${method} ${path}`);
      ex.ms = res.ms;
      ex.status = res.status;
      ex.json = res.json;
      ex.text = res.text;
      ex.contentType = res.headers['content-type'];
    } catch (e) {
      ex.ms = performance.now() - started;
      ex.error = (e as Error).message || String(e);
    }
    if (endpoint === 2 && method === 'PUT' && ex.status !== undefined && ex.status >= 200 && ex.status <= 299) this.hooks.botCreated?.(decodeURIComponent(path.split('/')[2] ?? ''));
    if (ex.error !== undefined) await this.hooks.noAnswer?.(ex);
    return ex;
  }
}

/** A bot write body for a new bot on scenario `idBot`, with fresh distribution rules. */
export function botWriteBody(idBot: string, language: string): BotWriteBody {
  return {
    name: `ces-check bot ${idBot}`,
    pseudo: 'CES checker',
    language,
    distributionRules: RULE_LABELS.map((label) => ({ id: randomUUID(), label })),
    external: { idBot },
  };
}

/** A new service-side bot operator id (the service names operators; a string per the spec). */
export const newOperatorId = (prefix = 'ces-check'): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** `<timestamp>[<zone_id>]`: the createdAt form of a message in endpoint-7 calls. */
export const zonedNow = (): string => `${new Date().toISOString()}[UTC]`;

export interface MessageBody { idMessage: string; author: { role: 'visitor' | 'operator' }; payload: unknown; createdAt: string }

export function visitorMessage(text: string, createdAt = zonedNow()): MessageBody {
  return { idMessage: randomUUID(), author: { role: 'visitor' }, payload: { contentType: 'text', value: text }, createdAt };
}

export function operatorMessage(payload: unknown, createdAt = zonedNow()): MessageBody {
  return { idMessage: randomUUID(), author: { role: 'operator' }, payload, createdAt };
}

/**
 * Asks the connector to remove bots a run created (DELETE /bots/{idOperator}, signed as G2 says): the contract has no deletion,
 * so this is best effort. Answers those it did not remove, each with why.
 */
export async function deleteBots(client: ConnectorClient, ids: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const id of ids) {
    const ex = await client.call(2, 'DELETE', `/bots/${encodeURIComponent(id)}`, { timeoutMs: 10_000 });
    if (ex.status === undefined || ex.status < 200 || ex.status > 299) left.push(`${id} (${ex.error ? 'no answer' : ex.status})`);
  }
  return left;
}

/** What a status says about the partner, when it says more than the number. */
export function statusMeaning(status: number, unsigned = false): string {
  if (status === 401 || status === 403) return unsigned ? 'refused: calls are unsigned (--unsigned) and the connector wants a signature' : 'refused the call: is --secret the connector\'s signing secret (G2)?';
  if (status === 404 || status === 405 || status === 501) return 'no such endpoint at this base URL?';
  if (status >= 500) return 'server error in the connector';
  return '';
}

/** The shortest description of an exchange, for a reason that refers to it (`PUT /bots/x → 404`, `→ no answer`). */
export function brief(ex: Exchange): string {
  return `${ex.method} ${ex.path} → ${ex.error ? 'no answer' : ex.status}`;
}

/**
 * One-line description of an exchange for reasons: what was sent and what came back (the transport cause, or the status with a
 * short excerpt of the body and what the status means).
 */
export function describe(ex: Exchange): string {
  if (ex.error) return `${ex.method} ${ex.path} → no answer after ${Math.round(ex.ms)} ms: ${transportCause(ex.error)}`;
  const failed = ex.status !== undefined && (ex.status < 200 || ex.status > 299);
  const meaning = failed ? statusMeaning(ex.status!) : '';
  const body = failed ? excerpt(ex, 60) : '';
  return `${ex.method} ${ex.path} → ${ex.status}${body ? ` ${body}` : ''}${meaning ? ` (${meaning})` : ''} in ${Math.round(ex.ms)} ms`;
}
