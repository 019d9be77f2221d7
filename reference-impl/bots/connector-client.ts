// Every service→connector call: query idConnectorVersion/idWebsite, G2 signature, outbound TLS trust, time limit by abort, G20 judgement, exchange log.
import { EventEmitter } from 'node:events';
import { Agent, request } from 'undici';
import { sign, SIGNATURE_HEADER } from '../../lib/signature.js';
import { check } from '../../lib/schemas.js';
import { outboundSecureContext } from '../../lib/outbound.js';
import type { ServiceContext } from '../context.js';

export type EndpointName = 'external-bots' | 'bot-put' | 'bot-get' | 'availability' | 'first-messages' | 'conversation-create' | 'messages';

/** Where and how to call one installed connector. */
export interface Installation { installId: number; baseUrl: string; secret: string; idConnectorVersion: string; websiteId: number }

export interface ConnectorCall {
  endpoint: EndpointName;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  /** Extra query parameters (idOperator for endpoint 4). */
  query?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Schema id of a good answer (G20: anything else is a failed call). */
  schema: string;
  conversationId?: number;
  operatorId?: number;
}

export type CallResult =
  | { ok: true; json: any; status: number; ms: number }
  | { ok: false; reason: string; kind: 'timeout' | 'network' | 'status' | 'not-json' | 'schema' | 'refused'; status?: number; ms: number; json?: any };

export interface Exchange {
  id?: number; conversationId: number | null; operatorId: number | null; endpoint: EndpointName; method: string; url: string;
  requestBody: string | null; status: number | null; responseBody: string | null; ms: number; failure: string | null; at: number;
}

/** Live feed of exchanges (the inspector subscribes): event 'exchange' with an Exchange. */
export const exchangeEvents = new EventEmitter();
exchangeEvents.setMaxListeners(100);

const recent: Exchange[] = [];
/** Exchanges kept in the store (the oldest are dropped beyond this). */
const EXCHANGES_KEPT = 50_000;

/** The exchange log of one conversation, oldest first. */
export function conversationExchanges(ces: ServiceContext, conversationId: number): Exchange[] {
  return (ces.db.prepare('SELECT * FROM connector_exchanges WHERE conversation_id = ? ORDER BY id').all(conversationId) as any[]).map((r) => ({
    id: r.id, conversationId: r.conversation_id, operatorId: r.operator_id, endpoint: r.endpoint, method: r.method, url: r.url,
    requestBody: r.request_body, status: r.status, responseBody: r.response_body, ms: r.ms, failure: r.failure, at: r.at,
  }));
}

/** Recent exchanges outside conversations (bot creation flow, availability polls), newest last. */
export function recentExchanges(): Exchange[] { return [...recent]; }

export class ConnectorClient {
  private agent: Agent;
  constructor(private ces: ServiceContext) {
    // Node's default roots plus the configured CA (the harness CA, NODE_EXTRA_CA_CERTS), as one shared secure context:
    // building it per connection stalled the 1 Hz polling under load. Connections outlive the polling period, so polls reuse them.
    this.agent = new Agent({ connect: { secureContext: outboundSecureContext(ces.settings.outboundCa) }, keepAliveTimeout: 30_000, connections: 64 });
  }

  async close(): Promise<void> { await this.agent.close().catch(() => {}); }

  async call(inst: Installation, c: ConnectorCall): Promise<CallResult> {
    const { deviations, clock } = this.ces;
    const q = new URLSearchParams();
    q.set('idConnectorVersion', inst.idConnectorVersion);
    // Endpoint 5 carries idConnectorVersion only (spec table); every other endpoint carries idWebsite too.
    if (c.endpoint !== 'first-messages' && !deviations.has('bots-missing-idwebsite')) q.set('idWebsite', String(inst.websiteId));
    for (const [k, v] of Object.entries(c.query ?? {})) q.set(k, v);
    const rawQuery = q.toString();
    const url = `${inst.baseUrl.replace(/\/+$/, '')}${c.path}?${rawQuery}`;
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);
    // G2: over the raw body for POST/PUT, over the raw query string for GET.
    let signed = c.method === 'GET' ? rawQuery : body ?? '';
    if (deviations.has('bots-bad-signature')) signed = c.method === 'GET' ? c.path : JSON.stringify(c.body, null, 1);
    const headers: Record<string, string> = { accept: 'application/json', [SIGNATURE_HEADER]: sign(inst.secret, signed) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const at = clock.now();
    const started = performance.now();
    let result: CallResult;
    let status: number | null = null;
    let text: string | null = null;
    if (!/^https:\/\//.test(inst.baseUrl) && !(this.ces.settings.insecure && /^http:\/\//.test(inst.baseUrl))) {
      result = { ok: false, kind: 'refused', reason: 'connector base URL must use HTTPS', ms: 0 };
    } else {
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), c.timeoutMs);
      try {
        const res = await request(url, { method: c.method, headers, body, dispatcher: this.agent, signal: ac.signal });
        status = res.statusCode;
        text = await res.body.text();
        const ms = performance.now() - started;
        let json: any;
        try { json = JSON.parse(text); } catch { json = undefined; }
        if (status < 200 || status > 299) result = { ok: false, kind: 'status', status, reason: `HTTP ${status}`, ms, json };
        else if (json === undefined) result = { ok: false, kind: 'not-json', status, reason: 'answer is not JSON', ms };
        else {
          const err = check(c.schema, json);
          result = err ? { ok: false, kind: 'schema', status, reason: `answer does not match ${c.schema}: ${err}`, ms, json } : { ok: true, json, status, ms };
        }
      } catch (e) {
        const ms = performance.now() - started;
        result = ac.signal.aborted
          ? { ok: false, kind: 'timeout', reason: `no answer within ${c.timeoutMs} ms`, ms }
          : { ok: false, kind: 'network', reason: `network error: ${(e as Error).message}`, ms };
      } finally {
        clearTimeout(timer);
      }
    }
    const ex: Exchange = {
      conversationId: c.conversationId ?? null, operatorId: c.operatorId ?? null, endpoint: c.endpoint, method: c.method, url,
      requestBody: body ?? null, status, responseBody: text === null ? null : text.slice(0, 20_000), ms: Math.round(result.ms), failure: result.ok ? null : result.reason, at,
    };
    this.log(ex);
    return result;
  }

  private log(ex: Exchange) {
    if (ex.conversationId !== null) {
      try {
        const r = this.ces.db.prepare(`INSERT INTO connector_exchanges (conversation_id, operator_id, endpoint, method, url, request_body, status, response_body, ms, failure, at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(ex.conversationId, ex.operatorId, ex.endpoint, ex.method, ex.url, ex.requestBody, ex.status, ex.responseBody, ex.ms, ex.failure, ex.at);
        ex.id = Number(r.lastInsertRowid);
        // Bounded store (load runs post many messages): keep the latest exchanges only.
        if (ex.id % 1_000 === 0) this.ces.db.prepare('DELETE FROM connector_exchanges WHERE id <= ?').run(ex.id - EXCHANGES_KEPT);
      } catch { /* the store is closed during shutdown: the exchange is dropped, never the process */ }
    } else {
      recent.push(ex);
      if (recent.length > 500) recent.splice(0, recent.length - 500);
    }
    exchangeEvents.emit('exchange', ex);
  }
}
