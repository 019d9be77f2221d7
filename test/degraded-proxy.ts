// A proxy in front of the reference implementation that removes or degrades features, as an unfinished service does (issue 38): a whole surface answered 404 with an HTML page, one route absent, one route a 500 with an HTML body, every answer late; several at once when they touch different routes.
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { TlsMaterial } from '../lib/tls.js';
import { readBody, relay, send } from './proxy-support.js';

/** The degradations; none on: the reference as it is. */
export type Degradation = 'graphql-404-html' | 'live-absent' | 'skill-500-html' | 'late-250ms';

const HTML = (title: string) => Buffer.from(`<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>nginx</p></body></html>`);
/** The REST routes of live availability (GET /operator/live, GET and PUT /operator/{id}/live), on both bases. */
const LIVE = /^\/(ha\/)?api\/2\/operator(\/\d+)?\/live(\?|$)/;
const SKILL = /^\/(ha\/)?api\/2\/skill(\/|\?|$)/;

export interface DegradedProxy { url: string; degradations: Degradation[]; close(): Promise<void> }

/** Starts the proxy on 127.0.0.1 (HTTPS with the stack's certificate) in front of `upstream`; set `degradations` between runs. */
export async function startDegradedProxy(upstream: string, tls: TlsMaterial): Promise<DegradedProxy> {
  const agent = new https.Agent({ keepAlive: true, ca: tls.ca.cert });
  const html = (res: ServerResponse, status: number, title: string) => {
    const body = HTML(title);
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) }).end(body);
  };
  const proxy: DegradedProxy = { url: '', degradations: [], close: async () => undefined };
  const server = https.createServer({ cert: tls.server.cert, key: tls.server.key }, (req, res) => {
    void (async () => {
      const body = await readBody(req);
      const p = req.url ?? '/';
      const on = (d: Degradation) => proxy.degradations.includes(d);
      if (on('graphql-404-html') && /^\/graphql(\/|\?|$)/.test(p)) return html(res, 404, '404 Not Found');
      if (on('live-absent') && LIVE.test(p)) return html(res, 404, '404 Not Found');
      if (on('skill-500-html') && SKILL.test(p)) return html(res, 500, '500 Internal Server Error');
      const a = await send(agent, `${upstream}${p}`, req.method!, req.headers, body);
      if (on('late-250ms')) await new Promise((r) => setTimeout(r, 250));
      relay(res, a);
    })().catch(() => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); agent.destroy(); });
  return proxy;
}
