// A small client playing the service against a bot connector: every call carries idConnectorVersion and idWebsite and the G2 signature, and is recorded with its timing.
import { randomUUID } from 'node:crypto';
import { sign, SIGNATURE_HEADER } from '../lib/signature.js';
import type { HttpAnswer, HttpRequest } from '../lib/http.js';
import type { ConnectorCheckSettings } from './settings.js';
import { RULE_LABELS } from './settings.js';

/** Sends one request (suites pass `api.request`, which attaches the masked evidence as a report step). */
export type Send = (req: HttpRequest, label?: string) => Promise<HttpAnswer>;

/** Spec endpoint numbers of the bot connector table. */
export type Endpoint = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export type SignatureMode = 'valid' | 'wrong' | 'missing';

export interface Exchange {
  endpoint: Endpoint;
  method: string;
  path: string;
  url: string;
  /** The exact bytes signed: raw query string (GET) or raw body (POST/PUT). */
  signed: string;
  requestBody?: unknown;
  status?: number;
  /** Parsed JSON answer, undefined when not JSON. */
  json?: unknown;
  text?: string;
  contentType?: string;
  /** Measured from sending to the whole answer read. */
  ms: number;
  /** Network error or timeout. */
  error?: string;
  /** Ms since the start of the conversation it belongs to (sequence diagrams). */
  at?: number;
}

export interface CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  signature?: SignatureMode;
  timeoutMs: number;
  label?: string;
}

export interface DistributionRule { id: string; label: string }
export interface BotWriteBody { name: string; pseudo: string; language: string; distributionRules: DistributionRule[]; external: { idBot: string } }

export class ConnectorClient {
  constructor(readonly settings: ConnectorCheckSettings, private readonly send: Send) {}

  /** The query string every call carries (endpoint 4 adds idOperator first, as the spec lists it). */
  query(extra: Record<string, string> = {}): string {
    return new URLSearchParams({ ...extra, idConnectorVersion: this.settings.connectorVersion, idWebsite: this.settings.website }).toString();
  }

  async call(endpoint: Endpoint, method: 'GET' | 'PUT' | 'POST', path: string, opts: CallOptions): Promise<Exchange> {
    const rawQuery = this.query(opts.query);
    const url = `${this.settings.url}${path}?${rawQuery}`;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    // G2: POST/PUT sign the raw body, GET signs the raw query string (without `?`).
    const signed = method === 'GET' ? rawQuery : (body ?? '');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const mode = opts.signature ?? 'valid';
    if (mode === 'valid') headers[SIGNATURE_HEADER] = sign(this.settings.secret, signed);
    if (mode === 'wrong') headers[SIGNATURE_HEADER] = sign(this.settings.secret, signed + '#not-these-bytes');
    const ex: Exchange = { endpoint, method, path, url, signed, requestBody: opts.body, ms: 0 };
    const started = performance.now();
    try {
      const res = await this.send({ method, url, headers, body, timeoutMs: opts.timeoutMs }, opts.label ?? `endpoint ${endpoint}: ${method} ${path}`);
      ex.ms = res.ms;
      ex.status = res.status;
      ex.json = res.json;
      ex.text = res.text;
      ex.contentType = res.headers['content-type'];
    } catch (e) {
      ex.ms = performance.now() - started;
      ex.error = (e as Error).message || String(e);
    }
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
export const newOperatorId = (): string => `ces-check-${randomUUID().slice(0, 8)}`;

/** `<timestamp>[<zone_id>]`: the createdAt form of a message in endpoint-7 calls. */
export const zonedNow = (): string => `${new Date().toISOString()}[UTC]`;

export interface MessageBody { idMessage: string; author: { role: 'visitor' | 'operator' }; payload: unknown; createdAt: string }

export function visitorMessage(text: string, createdAt = zonedNow()): MessageBody {
  return { idMessage: randomUUID(), author: { role: 'visitor' }, payload: { contentType: 'text', value: text }, createdAt };
}

export function operatorMessage(payload: unknown, createdAt = zonedNow()): MessageBody {
  return { idMessage: randomUUID(), author: { role: 'operator' }, payload, createdAt };
}

/** One-line human description of an exchange for terminal and report texts. */
export function describe(ex: Exchange): string {
  return `${ex.method} ${ex.path} → ${ex.error ? `no answer (${ex.error.split('\n')[0]})` : `${ex.status}`} in ${Math.round(ex.ms)} ms`;
}
