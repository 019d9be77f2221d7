// One error handling for every listener (the service's surfaces, the fake connector, the webhook sink): each error answered in the
// surface's documented shape, never with SQL text, a stack trace or a file path; a known path asked with another method is 405 + Allow.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Builds a surface's error body from a status and a message meant for the caller. */
export type ErrorShape = (status: number, message: string, req: FastifyRequest) => unknown;

/** `{ "error": "<reason>", "message": "..." }`: the simulation API, the platform API's refusals and the control APIs of the fakes. */
export const plainShape: ErrorShape = (status, message) => ({ error: REASONS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request'), message });
const REASONS: Record<number, string> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 408: 'request_timeout', 413: 'payload_too_large',
  414: 'uri_too_long', 415: 'unsupported_media_type', 429: 'too_many_requests', 431: 'headers_too_large',
};

/** What the caller may be told about an error: Fastify's own 4xx texts (bad JSON, media type, size) or the error's message when it
 * carries a 4xx status on purpose; anything else is an internal error whose details stay in the log. */
export function callerError(err: FastifyError | Error, req: FastifyRequest, accepted = 'application/json'): { status: number; message: string } {
  const e = err as FastifyError & { statusCode?: number };
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
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
    const { status, message } = callerError(err as Error, req, o.accepted);
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

/**
 * What a listener answers to a request its HTTP parser refused (headers over Node's 16 KiB: 431; a malformed request: 400), as
 * Fastify's own handler does, except that the socket is ended after the answer is written: destroying it at once (Fastify's
 * default) can drop the answer under TLS, and the client then sees a connection cut instead of the 431 (Schemathesis did).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'The request line and headers are over 16 KiB.']
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'The request took too long to arrive.']
      : [400, 'Bad Request', 'The request is not valid HTTP/1.1.'];
  const body = JSON.stringify({ error: REASONS[status as number] ?? 'bad_request', message });
  if (!socket.writable) { socket.destroy(); return; }
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  // A client that never reads its answer does not keep the socket open.
  setTimeout(() => socket.destroy(), 2_000).unref();
}
