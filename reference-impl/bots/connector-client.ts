// Every service→connector call: query idConnectorVersion/idWebsite, G2 signature, outbound TLS trust, time limit by abort, G20 judgement, exchange log.
import { Agent, request } from '../../lib/undici.js';
import { sign, SIGNATURE_HEADER } from '../../lib/signature.js';
import { check } from '../../lib/schemas.js';
import { outboundSecureContext } from '../../lib/outbound.js';
import type { Core } from '../core.js';
import type { EndpointName, Exchange, ExchangeLog } from './exchanges.js';

export type { EndpointName, Exchange };

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
  /** Endpoint 7: the role of the message's author (deviations may scope an edit to `messages visitor` or `messages operator`). */
  role?: 'visitor' | 'operator';
}

export type CallResult =
  | { ok: true; json: any; status: number; ms: number }
  | { ok: false; reason: string; kind: 'timeout' | 'network' | 'status' | 'not-json' | 'schema' | 'refused'; status?: number; ms: number; json?: any };


export class ConnectorClient {
  /** One pool per connection cap (deviations switch at run time). */
  private agents = new Map<number, Agent>();
  constructor(private ces: Core, private exchanges: ExchangeLog) {}

  /**
   * The pool of connections to connectors: Node's default roots plus the configured CA (the harness CA, NODE_EXTRA_CA_CERTS), as one
   * shared secure context: building it per connection stalled the 1 Hz polling under load. Connections outlive the polling period,
   * so polls reuse them; up to the policy's cap run at once, so conversations never wait for one another.
   */
  private agent(): Agent {
    const connections = this.ces.policy.bots.connectorConnections;
    let a = this.agents.get(connections);
    if (!a) this.agents.set(connections, (a = new Agent({ connect: { secureContext: outboundSecureContext(this.ces.settings.outboundCa) }, keepAliveTimeout: 30_000, connections })));
    return a;
  }

  async close(): Promise<void> { await Promise.all([...this.agents.values()].map((a) => a.close().catch(() => {}))); }

  async call(inst: Installation, c: ConnectorCall): Promise<CallResult> {
    const { deviations, clock } = this.ces;
    const where = [c.endpoint, `${c.endpoint} ${c.role ?? ''}`.trim()];
    // Endpoint 5 carries idConnectorVersion only (spec table); every other endpoint carries idWebsite too.
    const query: Record<string, string> = { idConnectorVersion: inst.idConnectorVersion, ...(c.endpoint !== 'first-messages' ? { idWebsite: String(inst.websiteId) } : {}), ...c.query };
    // The request seam: deviations at `bots.connector-request` edit the path, query and body (and below the headers), per endpoint;
    // an edit that leaves no request withholds it (fixtures/deviations/bots.json).
    const sent = deviations.edited('bots.connector-request', { path: c.path, query, body: c.body } as { path: string; query: Record<string, string>; body: unknown } | null, ...where);
    if (sent === null) return { ok: false, kind: 'refused', reason: 'the service did not send this call', ms: 0 };
    const rawQuery = new URLSearchParams(sent.query).toString();
    const url = `${inst.baseUrl.replace(/\/+$/, '')}${sent.path}?${rawQuery}`;
    const body = sent.body === undefined ? undefined : JSON.stringify(sent.body);
    // G2: HMAC-SHA256 of the raw query string (GET) or of the raw body (PUT, POST).
    const signature = sign(inst.secret, c.method === 'GET' ? rawQuery : body ?? '');
    const headers = deviations.edited('bots.connector-request', { headers: { accept: 'application/json', [SIGNATURE_HEADER]: signature, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } as Record<string, string> }, ...where).headers;
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
        const res = await request(url, { method: c.method, headers, body, dispatcher: this.agent(), signal: ac.signal });
        status = res.statusCode;
        text = await res.body.text();
        const ms = performance.now() - started;
        let json: any;
        try { json = JSON.parse(text); } catch { json = undefined; }
        if (status < 200 || status > 299) result = { ok: false, kind: 'status', status, reason: `HTTP ${status}`, ms, json };
        else if (json === undefined) result = { ok: false, kind: 'not-json', status, reason: 'answer is not JSON', ms };
        else {
          const err = check(c.schema, json);
          // The answer seam: deviations at `bots.connector-answer` edit how the service reads a good answer (`{body}`), per endpoint.
          result = err ? { ok: false, kind: 'schema', status, reason: `answer does not match ${c.schema}: ${err}`, ms, json } : { ok: true, json: deviations.edited('bots.connector-answer', { body: json }, ...where).body, status, ms };
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
