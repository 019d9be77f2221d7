// Area "graphql": POST/GET {graphql_url} (GraphQL over HTTP via graphql-http), bearer token required (G15), depth/cost limits, G16 availability rule.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, printSchema, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fastify';
import { buildCesSchema, ERROR_CODES, type GqlContext } from './schema.js';
import { reshaped } from './schema-shape.js';
import { costLimitRule, depthLimitRule } from './rules.js';
import { parseWithinLimits } from './document-limits.js';
import { bearerOf, verifyToken, type TokenOwner } from '../auth/tokens.js';
import { applyEdits } from '../../lib/json-edit.js';
import { row } from '../store/read.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The media type an answer uses: the GraphQL-over-HTTP one when the caller accepts it (G15), else JSON. */
export function answerType(accept: string | undefined): string {
  return /application\/graphql-response\+json/i.test(accept ?? '') ? GRAPHQL_RESPONSE : 'application/json';
}

function unauthenticated(req: FastifyRequest, reply: FastifyReply, status: number) {
  return reply.code(status).header('content-type', `${answerType(req.headers.accept)}; charset=utf-8`).header('www-authenticate', 'Bearer realm="graphql"')
    .send(JSON.stringify({ errors: [{ message: 'a valid bearer token from /oauth2/token is required', extensions: { code: ERROR_CODES.unauthenticated } }] }));
}

const area: FastifyPluginAsync = async (app) => {
  const ces = app.ces;
  const base = buildCesSchema();
  const shapes = new Map<string, GraphQLSchema>();
  /** The schema served: the spec's, or its SDL as deviations at `graphql.schema` edit it (kept per edit list; deviations switch at run time). */
  const schemaNow = (): GraphQLSchema => {
    const edits = ces.deviations.edits('graphql.schema');
    const key = JSON.stringify(edits);
    let s = shapes.get(key);
    if (!s) shapes.set(key, (s = edits.length ? reshaped(base, applyEdits(printSchema(base), edits)) : base));
    return s;
  };
  const owners = new WeakMap<object, TokenOwner>();

  const handler = createHandler<GqlContext>({
    // Nesting, aliases, fragments and tokens are counted in one linear pass before graphql-js' recursive parser runs (issue 14, item 7).
    parse: parseWithinLimits,
    schema: () => schemaNow(),
    context: (req) => {
      const owner = owners.get(req.raw as object)!;
      return { ces, clientId: owner.clientId, userId: owner.userId, availabilityResolved: 0 };
    },
    // GQL-LIMIT-01/02: depth and cost limits after graphql-js' own rules.
    validationRules: (_req, _args, specified) => [...specified, depthLimitRule(ces.policy.graphql.maxDepth), costLimitRule(ces.policy.graphql.maxCost)],
    formatError: (err) => withCode(err),
  });

  /** The error as the spec answers it: a GraphQLError with extensions.code, never internals. */
  function withCode(err: unknown): GraphQLError {
    if (!(err instanceof GraphQLError)) return new GraphQLError('internal error', { extensions: { code: ERROR_CODES.internal } });
    if (err.extensions?.code) return err;
    // Parse failures carry their code from the parser (document-limits.ts parseWithinLimits); an error with a path arose while
    // executing, any other one in validation.
    const code = err.path ? ERROR_CODES.internal : ERROR_CODES.validationFailed;
    if (code === ERROR_CODES.internal && err.originalError && !(err.originalError instanceof GraphQLError)) {
      // Never leak internals (SQL, stack traces) to the caller.
      return new GraphQLError('internal error', { nodes: err.nodes, path: err.path, extensions: { code } });
    }
    return new GraphQLError(err.message, { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, originalError: err.originalError, extensions: { ...err.extensions, code } });
  }

  // Requests Fastify refuses before GraphQL sees them (bad JSON, unsupported media type) still get a GraphQL-shaped error (G15).
  app.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    const message = status === 500 ? 'internal error' : err.message;
    return reply.code(status).header('content-type', `${answerType(req.headers.accept)}; charset=utf-8`)
      .send(JSON.stringify({ errors: [{ message, extensions: { code: status === 500 ? ERROR_CODES.internal : ERROR_CODES.badRequest } }] }));
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    // Authentication runs first (onRequest), so a caller without a valid token learns nothing, not even parse errors.
    onRequest: async (req, reply) => {
      // `?platform=` names the platform the caller's environment is on (spec: `sd`).
      const platform = (req.query as Record<string, unknown>).platform;
      if (platform !== undefined && !ces.policy.graphql.platforms.includes(String(platform))) {
        return reply.code(400).send({ errors: [{ message: `unknown platform ${JSON.stringify(platform)}: ?platform= names one of ${ces.policy.graphql.platforms.join(', ')}`, extensions: { code: ERROR_CODES.badUserInput } }] });
      }
      // A call without a valid token is refused (deviation graphql-unauthenticated-data: it runs as the first account's first user).
      const owner = verifyToken(ces, bearerOf(req.headers.authorization), 'graphql token owner')
        ?? (ces.policy.graphql.anonymousRefused ? null : row(ces, 'first user', { table: 'users', columns: 'id AS userId, client_id AS clientId, 0 AS expiresAt', where: {}, order: 'id' }) as TokenOwner | undefined);
      if (!owner) return unauthenticated(req, reply, 401);
      owners.set(req, owner);
    },
    // The request seam: deviations at `graphql.request` edit the query string and the body (the operation text, variables).
    preHandler: async (req) => {
      const asked = { query: req.query as Record<string, unknown>, body: req.body };
      const sent = ces.deviations.edited('graphql.request', asked);
      if (sent !== asked) { req.query = sent.query; req.body = sent.body; }
    },
    onSend: async (req, reply, payload) => {
      // graphql-http refuses other media types with an empty 415: say what is accepted (issue 14, item 7).
      if (reply.statusCode === 415 && (payload === null || payload === undefined || payload === '')) {
        reply.header('content-type', `${answerType(req.headers.accept)}; charset=utf-8`);
        payload = JSON.stringify({ errors: [{ message: `Unsupported content type '${req.headers['content-type'] ?? ''}': POST a body of type application/json ({"query": ..., "variables": ...}), or GET with query parameters.`, extensions: { code: ERROR_CODES.badRequest } }] });
      }
      // graphql-http answers some HTTP-level refusals itself (e.g. 405 for a mutation over GET) without formatError: give them a code too.
      if (reply.statusCode >= 400 && typeof payload === 'string' && payload.includes('"errors"')) {
        try {
          const body = JSON.parse(payload) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
          if (Array.isArray(body.errors) && body.errors.some((e) => !e.extensions?.code)) {
            body.errors = body.errors.map((e) => new GraphQLError(e.message, { extensions: { ...e.extensions, code: e.extensions?.code ?? ERROR_CODES.badRequest } }).toJSON());
            payload = JSON.stringify(body);
          }
        } catch { /* not JSON: leave as is */ }
      }
      // The response seam: deviations at `graphql.response` edit `{status, headers, body}` of every answer.
      const edits = ces.deviations.edits('graphql.response');
      if (!edits.length || typeof payload !== 'string') return payload;
      let body: unknown;
      try { body = JSON.parse(payload); } catch { return payload; }
      const answer = applyEdits({ status: reply.statusCode, headers: { 'content-type': String(reply.getHeader('content-type') ?? '') } as Record<string, unknown>, body }, edits);
      reply.code(answer.status).header('content-type', String(answer.headers['content-type']));
      return JSON.stringify(answer.body);
    },
    handler,
  });
};
export default area;
