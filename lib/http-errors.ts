// One error handling for every listener (the service's surfaces, the fake connector, the webhook sink): each error answered in the
// surface's documented shape, never with SQL text, a stack trace or a file path; a known path asked with another method is 405 + Allow.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Builds a surface's error body from a status and a message meant for the caller. */
export type ErrorShape = (status: number, message: string, req: FastifyRequest) => unknown;

/** `{ "error": "<reason>", "message": "..." }`: the simulation API, the platform API's refusals and the control APIs of the fakes. */
export const plainShape: ErrorShape = (status, message) => ({ error: REASONS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request'), message });
const REASONS: Record<number, string> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 408: 'request_timeout', 413: 'payload_too_large',
  414: 'uri_too_long', 415: 'unsupported_media_type', 429: 'too_many_requests', 431: 'headers_too_large',
};

/** What the caller may be told about an error: Fastify's own 4xx texts (bad JSON, media type, size) or the error's message when it
 * carries a 4xx status on purpose (its own, or `statusCode` where the surface decides it); anything else is an internal error
 * whose details stay in the log. */
export function callerError(err: FastifyError | Error, req: FastifyRequest, accepted = 'application/json', statusCode = (err as { statusCode?: number }).statusCode): { status: number; message: string } {
  const e = err as FastifyError;
  const status = typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 ? statusCode : 500;
  if (status === 500) return { status, message: 'Internal error.' };
  if (status === 415) return { status, message: `Unsupported content type '${req.headers['content-type'] ?? ''}': send ${accepted}.` };
  if (status === 413) return { status, message: 'Request body too large.' };
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return { status: 400, message: 'The body is not valid JSON.' };
  if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return { status: 400, message: 'The body is empty but its content type says JSON.' };
  return { status, message: e.message };
}

/** An error of reading the body (content type, length, JSON), as opposed to one a hook threw (authentication, URI length). */
const isBodyError = (e: FastifyError): boolean => typeof e.code === 'string' && (e.code.startsWith('FST_ERR_CTP_') || e.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE') || e instanceof SyntaxError;

/** Methods a listener serves per path pattern (`/operator/:id`), to tell 405 from 404. */
export class RouteMethods {
  private routes: Array<{ segments: string[]; method: string }> = [];
  /** Methods of each path served without a parameter (`/api/2/operator/live`). */
  private fixed = new Map<string, Set<string>>();
  add(url: string, method: string): void {
    this.routes.push({ segments: url.split('/'), method });
    if (!/[:*]/.test(url)) this.fixed.set(url, (this.fixed.get(url) ?? new Set()).add(method));
  }
  /** Methods of the route written exactly as `path` (no parameter), HEAD with GET; empty when no such route. */
  exact(path: string): string[] {
    const m = this.fixed.get(path);
    if (!m) return [];
    return [...new Set([...m, ...(m.has('GET') ? ['HEAD'] : [])])].sort();
  }
  /** Methods of the patterns matching `path` (segments compared one by one: `:x` is any one segment, `*` the rest). */
  allowed(path: string): string[] {
    const decode = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };
    const segs = path.split('?')[0]!.split('/').map(decode);
    const out = new Set<string>();
    for (const r of this.routes) {
      let ok = true;
      for (let i = 0; i < Math.max(r.segments.length, segs.length); i++) {
        const p = r.segments[i];
        if (p === '*') break;
        if (p === undefined || segs[i] === undefined || (p.startsWith(':') ? segs[i] === '' : p !== segs[i])) { ok = false; break; }
      }
      if (ok) out.add(r.method);
    }
    if (out.has('GET')) out.add('HEAD');
    return [...out].sort();
  }
}

export interface ErrorHandlingOptions {
  shape: ErrorShape;
  /** The media types the surface accepts, for 415 messages. */
  accepted?: string;
  /** Text of a 404 for a path the surface does not serve. */
  notFound?: (req: FastifyRequest) => string;
  /** Another method on a path served as written is 405 even where a sibling's parameter would match it (`PUT /operator/live`). */
  fixedPathsFirst?: boolean;
  /** Last look at a body before it is sent (deviation switches of the REST surface). */
  rewrite?: (status: number, body: unknown, req: FastifyRequest) => unknown;
  /**
   * The status an error answers with where the surface decides it at run time (REST: its policy's G10 statuses), before it is
   * judged as any other (a decided 5xx is an internal error); undefined: the error's own.
   */
  statusOf?: (err: Error, req: FastifyRequest) => number | undefined;
}

/**
 * Installs the error handler, the 404/405 handler and route tracking on an encapsulated scope; call it before the scope's routes.
 * 5xx details go to the log (when there is one), never to the caller.
 */
export function installErrorHandling(app: FastifyInstance, o: ErrorHandlingOptions): RouteMethods {
  const methods = new RouteMethods();
  app.addHook('onRoute', (r) => { for (const m of Array.isArray(r.method) ? r.method : [r.method]) methods.add(r.url, m); });
  const send = (reply: FastifyReply, req: FastifyRequest, status: number, message: string) => {
    const body = o.shape(status, message, req);
    return reply.code(status).send(o.rewrite ? o.rewrite(status, body, req) : body);
  };
  /** 405 + Allow when the path is served with other methods, else 404. */
  const unrouted = (req: FastifyRequest, reply: FastifyReply) => {
    // A path served as written has its own methods, not those of a sibling's parameter (`/operator/live` is not `/operator/{id}`).
    const exact = methods.exact(req.url.split('?')[0]!);
    const allow = (exact.length ? exact : methods.allowed(req.url)).filter((m) => m !== req.method);
    if (allow.length) {
      reply.header('allow', allow.join(', '));
      return send(reply, req, 405, `Method ${req.method} is not allowed on ${req.url.split('?')[0]}; allowed: ${allow.join(', ')}.`);
    }
    return send(reply, req, 404, o.notFound ? o.notFound(req) : `Unknown route ${req.method} ${req.url.split('?')[0]}.`);
  };
  app.setErrorHandler((err, req, reply) => {
    // A request no route serves is answered as such even when reading its body failed first: Fastify parses the body of a method
    // like QUERY (which carries one) before the not-found handler runs, and a missing content type must not hide the 405.
    if (req.is404 && isBodyError(err as FastifyError)) return unrouted(req, reply);
    const { status, message } = callerError(err as Error, req, o.accepted, o.statusOf?.(err as Error, req));
    if (status === 500) req.log.error(err);
    return send(reply, req, status, message);
  });
  app.setNotFoundHandler((req, reply) => unrouted(req, reply));
  // A path served as written (`/operator/live`) is that resource, not a value of a sibling's parameter (`/operator/{id}`): another
  // method on it is 405 with its own methods, as its documentation says, rather than the parametric route's "bad id" 400.
  // Opt-in per scope: a hook of the root would run first for every surface and answer in the root's shape.
  if (o.fixedPathsFirst) app.addHook('preHandler', async (req, reply) => {
    if (!req.routeOptions.url?.includes(':')) return;
    const path = req.url.split('?')[0]!;
    const allow = methods.exact(path);
    if (!allow.length || allow.includes(req.method)) return;
    reply.header('allow', allow.join(', '));
    return send(reply, req, 405, `Method ${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}.`);
  });
  return methods;
}

/** 414 before anything else reads a request whose path and query are longer than `max` (answered in the surface's shape). */
export function uriLimitHook(max: number) {
  return async (req: FastifyRequest) => {
    if (req.url.length > max) throw Object.assign(new Error(`The request URI is ${req.url.length} characters long; at most ${max} are accepted.`), { statusCode: 414 });
  };
}

/** The header that carries, on a request re-dispatched by `clientErrorHandler`, the method token Node's parser did not know. */
const UNPARSED_METHOD = 'x-ces-unparsed-method';
/** The method that stands in for an unknown token while the router runs: every listener serves it on no route. */
const STAND_IN = 'TRACE';

/**
 * Lets a method token Node's parser refuses (`FOO`) reach the surfaces' own 404/405 handling, authentication first: clientErrorHandler
 * re-dispatches such a request as STAND_IN with the token in UNPARSED_METHOD, and this hook gives the request its token back before
 * any other hook reads the method, so messages and Allow name what the client sent. (Methods the parser knows, PROPFIND or PURGE,
 * already reach every scope's not-found handler: Fastify registers it for all of them.) Call it on the root instance before any
 * plugin, so that every scope inherits the hook.
 */
export function answerEveryMethod(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const token = req.headers[UNPARSED_METHOD];
    if (token === undefined) return;
    delete req.headers[UNPARSED_METHOD];
    // Only a request this process injected is trusted with the header: a client sending it on the wire changes nothing.
    const raw = req.raw as typeof req.raw & { isLightMyRequest?: boolean };
    if (raw.isLightMyRequest && req.method === STAND_IN && typeof token === 'string' && TOKEN.test(token)) raw.method = token;
  });
}

/** RFC 9110 token (a method, a header name): one class repeated, linear to test. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
/** An origin-form request target (`/path?query`): visible ASCII only, as RFC 9112 allows. */
const REQUEST_TARGET = /^\/[\x21-\x7e]*$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field value characters (visible ASCII, obs-text, space, tab): no CR, LF or other control character. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers about the connection or a body: the re-dispatched request has no body and its connection is closed after the answer. */
const NOT_FORWARDED = new Set(['content-length', 'transfer-encoding', 'content-type', 'connection', 'keep-alive', 'upgrade', 'te', 'expect', 'trailer', UNPARSED_METHOD]);

/** A request head as received (`FOO /api/2/operator HTTP/1.1` and its headers), or why it cannot be read. */
export function parseRequestHead(raw: Buffer, maxBytes = HEAD_MAX_BYTES): { method: string; url: string; headers: Record<string, string | string[]> } | { status: 400 | 431; message: string } {
  const end = raw.subarray(0, maxBytes + 4).indexOf('\r\n\r\n');
  if (end < 0 || end > maxBytes) {
    return raw.length >= maxBytes ? { status: 431, message: HEAD_TOO_LARGE } : { status: 400, message: 'The request head did not arrive whole with its unknown method.' };
  }
  const [line, ...fields] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const parts = line!.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]!) || !REQUEST_TARGET.test(parts[1]!) || !/^HTTP\/1\.[01]$/.test(parts[2]!)) return { status: 400, message: 'The request is not valid HTTP/1.1.' };
  const headers: Record<string, string | string[]> = {};
  for (const f of fields) {
    const colon = f.indexOf(':');
    const name = f.slice(0, colon).toLowerCase();
    const value = f.slice(colon + 1).trim();
    if (colon < 1 || !HEADER_NAME.test(name) || !FIELD_VALUE.test(value)) return { status: 400, message: 'The request is not valid HTTP/1.1.' };
    if (NOT_FORWARDED.has(name)) continue;
    const had = headers[name];
    headers[name] = had === undefined ? value : [had, value].flat();
  }
  return { method: parts[0]!, url: parts[1]!, headers };
}

/** Node's default limit of a request head (`--max-http-header-size`), over which its parser answers 431. */
const HEAD_MAX_BYTES = 16 * 1024;
const HEAD_TOO_LARGE = 'The request line and headers are over 16 KiB.';

/** An answer written on a socket whose parser has given up: `Connection: close`, then the socket is ended. */
function endWith(socket: Duplex, status: number, headers: Record<string, unknown>, body: Buffer): void {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`];
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || ['connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(k.toLowerCase())) continue;
    for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${String(one)}`);
  }
  lines.push(`Content-Length: ${body.length}`, 'Connection: close');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), body]));
  // A client that never reads its answer does not keep the socket open.
  setTimeout(() => socket.destroy(), 2_000).unref();
}

/** Marks a socket whose parser error has been answered. */
const ANSWERED = Symbol('ces.clientErrorAnswered');

/** A plain error answer for what no surface judged (a head Node's parser refused). */
const plainAnswer = (socket: Duplex, status: number, message: string) =>
  endWith(socket, status, { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ error: REASONS[status] ?? 'bad_request', message })));

/**
 * What a listener answers to a request its HTTP parser refused, as Fastify's own handler does (headers over Node's 16 KiB: 431; a
 * malformed request: 400), except that the socket is ended after the answer is written: destroying it at once (Fastify's default)
 * can drop the answer under TLS, and the client then sees a connection cut instead of the 431 (Schemathesis did). A method token the
 * parser does not know (`FOO /api/2/operator`) is no malformed request: its head is read from the bytes received and dispatched to
 * the listener (see answerEveryMethod), so the path's surface authenticates it and answers 405 with the path's methods, or 404.
 * Fastify calls it with `this` bound to the listener's instance.
 */
export function clientErrorHandler(this: FastifyInstance | undefined, err: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  const s = socket as Duplex & { [ANSWERED]?: boolean; _httpMessage?: { headersSent?: boolean } | null };
  // The parser stays in error: bytes arriving after the head (a body written separately) raise the error again; one answer only.
  if (err.code === 'ECONNRESET' || socket.destroyed || s[ANSWERED]) return;
  // An answer to an earlier request of this connection already on the wire: nothing more can be written that the client could read.
  if (!socket.writable || s._httpMessage?.headersSent) { socket.destroy(); return; }
  s[ANSWERED] = true;
  // The path's surface answers an unknown method, after the response of a pipelined request still in flight would have to wait: that
  // rare case keeps the plain 400 written at once.
  if (err.code === 'HPE_INVALID_METHOD' && this && Buffer.isBuffer(err.rawPacket) && !s._httpMessage) {
    const head = parseRequestHead(err.rawPacket);
    if ('status' in head) { plainAnswer(socket, head.status, head.message); return; }
    const app = this;
    const remoteAddress = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    // Started inside a promise: whatever inject throws becomes the plain 400 below, never an exception in the socket's event.
    Promise.resolve().then(() => app.inject({ method: STAND_IN, url: head.url, headers: { ...head.headers, [UNPARSED_METHOD]: head.method }, remoteAddress }))
      .then((res) => { if (!socket.destroyed) endWith(socket, res.statusCode, res.headers, res.rawPayload); })
      .catch(() => { if (!socket.destroyed) plainAnswer(socket, 400, 'The request is not valid HTTP/1.1.'); });
    return;
  }
  const [status, message] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, HEAD_TOO_LARGE]
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'The request took too long to arrive.']
      : [400, 'The request is not valid HTTP/1.1.'];
  plainAnswer(socket, status as number, message as string);
}
