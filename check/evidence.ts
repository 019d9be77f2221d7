// What a connector answer is evidence of: a bot created, an endpoint that does not exist (answered as a path that does not exist), a call refused for its signature; pure judgements the connector checks share.
import type { Exchange } from './exchange.js';

/** A path no connector serves: its answer is how the connector answers an endpoint that does not exist. */
export const NOT_FOUND_PROBE_PATH = '/ces-check-no-such-endpoint';

export const is2xx = (ex: Exchange): boolean => ex.status !== undefined && ex.status >= 200 && ex.status <= 299;
/** The replies of an answer (`[]` when it has no replies array). */
export const repliesOf = (ex: Exchange): any[] => (Array.isArray((ex.json as any)?.replies) ? (ex.json as any).replies : []);
/** Refused for its credentials: 401 or 403 (another 4xx says something else about the call). */
export const refusedAuth = (ex: Exchange): boolean => ex.status === 401 || ex.status === 403;

/**
 * The answer with what varies between two requests taken out (the method, the path as sent, ids, dates, numbers), so the
 * connector's answer to an endpoint can be compared with its answer to a path that does not exist.
 */
export function notFoundShape(ex: Exchange): string {
  const u = new URL(ex.url);
  const paths = [`${u.pathname}${u.search}`, u.pathname, decodeURIComponent(u.pathname), ex.path].sort((a, b) => b.length - a.length);
  let body = ex.text ?? (ex.json === undefined ? '' : JSON.stringify(ex.json));
  for (const p of paths) if (p) body = body.split(p).join('<path>');
  body = body
    .replace(new RegExp(`\\b${ex.method}\\b`, 'g'), '<method>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}[T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?/g, '<date>')
    .replace(/\d+/g, '<n>');
  return `${ex.status} ${(ex.contentType ?? '').split(';')[0]} ${body}`;
}

/**
 * Whether the answer says the endpoint does not exist: 405 (the path has no such method) or 501, or a 404 answered exactly
 * as the connector answers a path that does not exist (`probe`); a 404 of its own ("unknown bot") says something else.
 * Endpoints 1, 2 and 6 name no resource that may be unknown: a 404 there is the endpoint missing.
 */
export function endpointAbsent(ex: Exchange, probe: Exchange | undefined): boolean {
  if (ex.status === 405 || ex.status === 501) return true;
  if (ex.status !== 404) return false;
  if (ex.endpoint === 1 || ex.endpoint === 2 || ex.endpoint === 6) return true;
  return probe?.status === 404 && notFoundShape(ex) === notFoundShape(probe);
}

/** The bot exists at the connector only when PUT /bots/{idOperator} answered 2xx. */
export const botCreated = (put: Exchange): boolean => is2xx(put);

/** The text of markup (an HTML error page), script and style left out; one linear pass, whatever the partner sent. */
export function markupText(html: string, enough = 2_000): string {
  let out = '';
  let skip = '';
  let i = 0;
  while (i < html.length && out.length < enough) {
    const lt = html.indexOf('<', i);
    if (!skip) out += lt < 0 ? html.slice(i) : html.slice(i, lt);
    if (lt < 0) break;
    const gt = html.indexOf('>', lt);
    if (gt < 0) break;
    const tag = html.slice(lt + 1, Math.min(gt, lt + 40)).toLowerCase();
    const name = /^\/?([a-z0-9]+)/.exec(tag)?.[1] ?? '';
    if (skip) { if (tag.startsWith('/') && name === skip) skip = ''; } else if (!tag.startsWith('/') && (name === 'script' || name === 'style')) skip = name;
    out += ' ';
    i = gt + 1;
  }
  return out.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/** Short excerpt of an answer body for a reason: markup reduced to its text (never escaped), whitespace folded, cut at `max` characters. */
export function excerpt(ex: Exchange, max = 120): string {
  const raw = ex.text ?? (ex.json === undefined ? '' : JSON.stringify(ex.json));
  const markup = ex.json === undefined && /^\s*</.test(raw);
  const text = (markup ? markupText(raw) : raw.slice(0, max * 4)).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
