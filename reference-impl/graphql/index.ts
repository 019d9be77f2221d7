// Area "graphql": POST/GET {graphql_url} (GraphQL over HTTP via graphql-http), bearer token required (G15), depth/cost limits, G16 availability rule.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fastify';
import { buildCesSchema, ERROR_CODES, type GqlContext, type SchemaVariant } from './schema.js';
import { parseWithinLimits } from './document-limits.js';
import { bearerOf, verifyToken, type TokenOwner } from '../auth/tokens.js';

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
  const schemas = new Map<string, GraphQLSchema>();
  const schemaFor = (variant: SchemaVariant) => {
    const key = JSON.stringify(variant);
    let s = schemas.get(key);
    if (!s) schemas.set(key, (s = buildCesSchema(variant)));
    return s;
  };
  const owners = new WeakMap<object, TokenOwner>();

  const handler = createHandler<GqlContext>({
    // Nesting, aliases, fragments and tokens are counted in one linear pass before graphql-js' recursive parser runs (issue 14, item 7).
    parse: parseWithinLimits,
    // Deviations that change the schema's shape pick a variant per request (they can be switched at run time).
    schema: () => schemaFor(ces.deviations.policy.graphql.schemaVariant),
    context: (req) => {
      const owner = owners.get(req.raw as object)!;
      return { ces, clientId: owner.clientId, userId: owner.userId, availabilityResolved: 0 };
    },
    validationRules: (_req, _args, specified) => ces.deviations.policy.graphql.validationRules(specified),
    formatError: (err) => ces.deviations.policy.graphql.answeredError(withCode(err)),
  });

  /** The error as the spec answers it: a GraphQLError with extensions.code, never internals. */
  function withCode(err: unknown): GraphQLError {
    if (!(err instanceof GraphQLError)) return new GraphQLError('internal error', { extensions: { code: ERROR_CODES.internal } });
    if (err.extensions?.code) return err;
    const code = err.message.startsWith('Syntax Error') ? ERROR_CODES.parseFailed : err.path ? ERROR_CODES.internal : ERROR_CODES.validationFailed;
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
      const policy = ces.deviations.policy.graphql;
      const platform = (req.query as Record<string, unknown>).platform;
      if (platform !== undefined && !policy.platformParamAccepted) {
        return reply.code(400).send({ errors: [{ message: 'unknown parameter platform', extensions: { code: ERROR_CODES.badUserInput } }] });
      }
      const owner = verifyToken(ces, bearerOf(req.headers.authorization), { ignoreExpiry: !policy.tokenExpiryChecked });
      if (!owner && policy.anonymousRunsAsFirstAccount) {
        const first = ces.db.prepare('SELECT id, client_id FROM users ORDER BY id LIMIT 1').get() as { id: number; client_id: number };
        owners.set(req, { userId: first.id, clientId: first.client_id, expiresAt: Number.MAX_SAFE_INTEGER });
        return;
      }
      if (!owner) return unauthenticated(req, reply, policy.unauthenticatedStatus);
      owners.set(req, owner);
    },
    onSend: async (req, reply, payload) => {
      const policy = ces.deviations.policy.graphql;
      // graphql-http refuses other media types with an empty 415: say what is accepted (issue 14, item 7).
      if (reply.statusCode === 415 && (payload === null || payload === undefined || payload === '')) {
        reply.header('content-type', `${answerType(req.headers.accept)}; charset=utf-8`);
        return JSON.stringify({ errors: [{ message: `Unsupported content type '${req.headers['content-type'] ?? ''}': POST a body of type application/json ({"query": ..., "variables": ...}), or GET with query parameters.`, extensions: { code: ERROR_CODES.badRequest } }] });
      }
      if (policy.forcedContentType) reply.header('content-type', policy.forcedContentType);
      // graphql-http answers some HTTP-level refusals itself (e.g. 405 for a mutation over GET) without formatError: give them a code too.
      if (reply.statusCode >= 400 && typeof payload === 'string' && payload.includes('"errors"')) {
        try {
          const body = JSON.parse(payload) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
          if (Array.isArray(body.errors) && body.errors.some((e) => !e.extensions?.code)) {
            body.errors = body.errors.map((e) => policy.answeredError(new GraphQLError(e.message, { extensions: { ...e.extensions, code: e.extensions?.code ?? ERROR_CODES.badRequest } })).toJSON());
            return JSON.stringify(body);
          }
        } catch { /* not JSON: leave as is */ }
      }
      return payload;
    },
    handler,
  });
};
export default area;
