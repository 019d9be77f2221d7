// Every service→connector call: query idConnectorVersion/idWebsite, G2 signature, outbound TLS trust, time limit by abort, G20 judgement, exchange log.
import { Agent, request } from 'undici';
import { sign, SIGNATURE_HEADER } from '../../lib/signature.js';
import { applyEdits } from '../../lib/json-edit.js';
import { check } from '../../lib/schemas.js';
import { outboundSecureContext } from '../../lib/outbound.js';
import type { ServiceContext } from '../context.js';
import type { ExchangeLog } from './exchanges.js';

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

export class ConnectorClient {
  private agent: Agent;
  constructor(private ces: ServiceContext, private exchanges: ExchangeLog) {
    // Node's default roots plus the configured CA (the harness CA, NODE_EXTRA_CA_CERTS), as one shared secure context:
    // building it per connection stalled the 1 Hz polling under load. Connections outlive the polling period, so polls reuse them.
    this.agent = new Agent({ connect: { secureContext: outboundSecureContext(ces.settings.outboundCa) }, keepAliveTimeout: 30_000, connections: 64 });
  }

  async close(): Promise<void> { await this.agent.close().catch(() => {}); }

  async call(inst: Installation, c: ConnectorCall): Promise<CallResult> {
    const { deviations, clock } = this.ces;
    // Endpoint 5 carries idConnectorVersion only (spec table); every other endpoint carries idWebsite too.
    const query: Record<string, string> = { idConnectorVersion: inst.idConnectorVersion, ...(c.endpoint !== 'first-messages' ? { idWebsite: String(inst.websiteId) } : {}), ...c.query };
    // The request seam: deviations at `bots.connector-request` edit the query and body, per endpoint (fixtures/deviations/bots.json).
    const sent = applyEdits({ query, body: c.body }, deviations.edits('bots.connector-request', c.endpoint));
    const rawQuery = new URLSearchParams(sent.query).toString();
    const url = `${inst.baseUrl.replace(/\/+$/, '')}${c.path}?${rawQuery}`;
    const body = sent.body === undefined ? undefined : JSON.stringify(sent.body);
    const signed = deviations.policy.bots.signedBytes(c.method, rawQuery, c.path, body, sent.body);
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
    this.exchanges.add(ex);
    return result;
  }
}
