// The explorer's connector client: every call signed as G2 says (check/connector-client.ts), paced to at most --rate calls per second over the whole run (calls sent together included); a call's measured time starts after its wait.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConnectorClient } from '../check/connector-client.js';
import { DEFAULT_LANGUAGE, DEFAULT_WEBSITE } from '../check/settings.js';
import { agentFor, http } from '../lib/http.js';

/** A gate that lets at most `rate` calls a second through (0: no limit); one per run, never shared between runs. */
export function pacer(rate: number): () => Promise<void> {
  if (rate <= 0) return async () => {};
  const gap = 1000 / rate;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };
}

export interface ClientOptions { url: string; secret?: string; caFile?: string; allowHttp: boolean; unsigned?: boolean; rate: number; connectorVersion?: string; website?: string; language?: string; parallel?: number }

/** The client of one explore (or session replay) run. */
export function explorerClient(o: ClientOptions): ConnectorClient {
  const agent = agentFor(o.caFile ? path.resolve(o.caFile) : undefined);
  const slot = pacer(o.rate);
  return new ConnectorClient({
    url: o.url.replace(/\/+$/, ''), secret: o.secret ?? '', connectorVersion: o.connectorVersion ?? randomUUID(), website: o.website ?? DEFAULT_WEBSITE,
    language: o.language ?? DEFAULT_LANGUAGE, allowHttp: o.allowHttp, unsigned: o.unsigned === true, script: [], conversations: o.parallel ?? 1, origin: 'ces check',
  }, async (req) => { await slot(); return http(req, agent); });
}
