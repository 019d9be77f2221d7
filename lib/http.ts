// One HTTP client for suites, checks and fakes: undici with the target's CA, answers read whole with timings.
import fs from 'node:fs';
import type { Dispatcher } from 'undici';
import { Agent, request as undiciRequest } from './undici.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any;
  ms: number;
}

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Abort after this many ms (the answer then has status 0). */
  timeoutMs?: number;
  /** Cancels the request (ces explore: a shrinking step past its budget). */
  signal?: AbortSignal;
}

const agents = new Map<string, Agent>();
export function agentFor(caFile?: string): Agent {
  const key = caFile ?? '';
  let a = agents.get(key);
  if (!a) {
    const ca = caFile ? fs.readFileSync(caFile, 'utf8') : undefined;
    a = new Agent({ connect: ca ? { ca: [ca] } : {}, keepAliveTimeout: 4_000 });
    agents.set(key, a);
  }
  return a;
}

export async function http(req: HttpRequest, dispatcher?: Dispatcher): Promise<HttpAnswer> {
  const started = performance.now();
  const res = await undiciRequest(req.url, {
    method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body,
    dispatcher,
    headersTimeout: req.timeoutMs,
    bodyTimeout: req.timeoutMs,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const text = await res.body.text();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
  let json: any;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: res.statusCode, headers, text, json, ms: performance.now() - started };
}
