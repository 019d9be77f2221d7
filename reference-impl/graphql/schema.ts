// The GraphQL schema of the service (code-first graphql-js, a description on every type and field), resolved from the store, scoped to the token's client.
import {
  GraphQLBoolean, GraphQLError, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, Kind, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLOutputType,
} from 'graphql';
import type { ServiceContext } from '../context.js';
import { list } from '../store/db.js';
import { LIMITS } from '../../lib/limits.js';
import { routingRuleAvailability, type ChannelAvailability } from '../bots/availability.js';
import { count, row, rows, type Read } from '../store/read.js';

/** Per-request context: who asks (from the bearer token) and what this operation has resolved so far. */
export type GqlContext = {
  ces: ServiceContext;
  clientId: number;
  userId: number;
  /** G16: how many `availability` fields this operation resolved. */
  availabilityResolved: number;
};

export const ERROR_CODES = {
  unauthenticated: 'UNAUTHENTICATED',
  badUserInput: 'BAD_USER_INPUT',
  badRequest: 'BAD_REQUEST',
  availabilityLimit: 'AVAILABILITY_LIMIT_EXCEEDED',
  tooDeep: 'QUERY_TOO_DEEP',
  tooCostly: 'QUERY_TOO_COSTLY',
  parseFailed: 'GRAPHQL_PARSE_FAILED',
  validationFailed: 'GRAPHQL_VALIDATION_FAILED',
  internal: 'INTERNAL_SERVER_ERROR',
} as const;

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: ERROR_CODES.badUserInput } });
const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const nn = <T extends GraphQLOutputType>(t: T) => new GraphQLNonNull(t);
const nnList = <T extends GraphQLOutputType>(t: T) => nn(new GraphQLList(nn(t)));

interface Row { [k: string]: any }

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** G27: conversation ids, as public clients declare them (`query ($id: UUID!)`). */
export const UUIDScalar = new GraphQLScalarType<string, string>({
  name: 'UUID', description: 'A UUID in its canonical text form (8-4-4-4-12 hexadecimal digits): the id of a conversation.',
  serialize: (v) => String(v),
  parseValue: (v) => { if (typeof v !== 'string' || !UUID_RE.test(v)) throw badInput(`UUID expects a UUID string (got ${JSON.stringify(v)}).`); return v; },
  parseLiteral: (ast) => { if (ast.kind !== Kind.STRING || !UUID_RE.test(ast.value)) throw badInput('UUID expects a UUID string.'); return ast.value; },
});
/** G27: integer legacy ids (the REST id of a conversation); an Int or a string of digits is accepted. */
export const LegacyIdScalar = new GraphQLScalarType<number, number>({
  name: 'LegacyId', description: 'The integer id of a resource in REST API v2 (a conversation\'s `legacyId`).',
  serialize: (v) => Number(v),
  parseValue: (v) => { const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN; if (!Number.isSafeInteger(n) || n < 0) throw badInput(`LegacyId expects a non-negative integer (got ${JSON.stringify(v)}).`); return n; },
  parseLiteral: (ast) => { const raw = ast.kind === Kind.INT || ast.kind === Kind.STRING ? ast.value : ''; if (!/^\d+$/.test(raw)) throw badInput('LegacyId expects a non-negative integer.'); return Number(raw); },
});
interface Page<T> { rows: T[]; total: number; offset: number }

/** Reads `first`/`after` (offset cursors, opaque to callers). */
function pageArgs(args: { first?: number | null; after?: string | null }, cursorStep: number): { limit: number; offset: number } {
  const limit = args.first ?? LIMITS.graphqlPageDefault;
  if (!Number.isInteger(limit) || limit < 0 || limit > LIMITS.graphqlPageMax) throw badInput(`first must be between 0 and ${LIMITS.graphqlPageMax}`);
  let offset = 0;
  if (args.after) {
    const m = /^o:(\d+)$/.exec(Buffer.from(args.after, 'base64url').toString('utf8'));
    if (!m) throw badInput('after is not a cursor returned by this API');
    offset = Number(m[1]) + cursorStep;
  }
  return { limit, offset };
}
const cursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');

/** One page of a named read (the store-read seam names it `graphql <what>`). */
function paged(ces: ServiceContext, name: string, q: Read, args: { first?: number | null; after?: string | null }): Page<Row> {
  const { limit, offset } = pageArgs(args, ces.policy.graphql.cursorStep);
  return { rows: rows(ces, name, { ...q, limit, offset }), total: count(ces, name, q), offset };
}

function parseInstant(value: string, name: string): number {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)) throw badInput(`${name} must be an ISO 8601 date or date-time, got ${JSON.stringify(value)}`);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badInput(`${name} is not a valid date: ${JSON.stringify(value)}`);
  return ms;
}

const idNum = (id: string): number | null => (/^\d+$/.test(id) ? Number(id) : null);

export function buildCesSchema(): GraphQLSchema {
  // G27: conversation ids are UUID, legacy ids LegacyId.
  const uuidType = UUIDScalar;
  const legacyType = LegacyIdScalar;
  const d = (text: string) => text;
  const f = <TSource = Row>(type: GraphQLOutputType, description: string, resolve?: GraphQLFieldConfig<TSource, GqlContext>['resolve'], args?: GraphQLFieldConfig<TSource, GqlContext>['args']): GraphQLFieldConfig<TSource, GqlContext> =>
    ({ type, description: d(description), resolve, args });
  const pageArgDefs = {
    first: { type: GraphQLInt, description: d(`Number of items to return (default ${LIMITS.graphqlPageDefault}, at most ${LIMITS.graphqlPageMax}).`) },
    after: { type: GraphQLString, description: d('Cursor of the item after which the page starts (an `endCursor` or edge `cursor`).') },
  };

  const pageInfo = new GraphQLObjectType({
    name: 'PageInfo', description: d('Where a page of a connection stands.'),
    fields: {
      hasNextPage: f(nn(GraphQLBoolean), 'True when more items follow this page.', (p: Page<Row>) => p.offset + p.rows.length < p.total),
      endCursor: f(GraphQLString, 'Cursor of the last item of this page; pass it as `after` for the next page.', (p: Page<Row>) => (p.rows.length ? cursor(p.offset + p.rows.length - 1) : null)),
    },
  });
  const connection = (name: string, node: GraphQLObjectType, what: string) => {
    const edge = new GraphQLObjectType({
      name: `${name}Edge`, description: d(`One ${what} in a page, with its cursor.`),
      fields: {
        node: f(nn(node), `The ${what}.`, (e: { row: Row; offset: number }) => e.row),
        cursor: f(nn(GraphQLString), 'Opaque cursor of this item.', (e: { row: Row; offset: number }) => cursor(e.offset)),
      },
    });
    return new GraphQLObjectType({
      name: `${name}Connection`, description: d(`A page of ${what} items (Relay connection: \`edges\` with \`node\`).`),
      fields: {
        edges: f(nnList(edge), 'The items of this page.', (p: Page<Row>) => p.rows.map((row, i) => ({ row, offset: p.offset + i }))),
        pageInfo: f(nn(pageInfo), 'Paging information.', (p: Page<Row>) => p),
        totalCount: f(nn(GraphQLInt), 'Number of items over all pages.', (p: Page<Row>) => p.total),
      },
    });
  };

  // Types are declared with thunks so Client <-> Project can refer to each other.
  let projectConnection: GraphQLObjectType;
  const client: GraphQLObjectType = new GraphQLObjectType<Row, GqlContext>({
    name: 'Client', description: d('The customer account the token belongs to (replaces the deprecated REST Client).'),
    fields: () => ({
      id: f(nn(GraphQLID), 'Identifier of the customer account (the REST `client_id`).', (c) => String(c.id)),
      name: f(nn(GraphQLString), 'Name of the customer account.'),
      lang: f(nn(GraphQLString), 'Language of the account, 2 characters.'),
      premiumEnabled: f(nn(GraphQLBoolean), 'True when the account has the premium offer.', (c) => !!c.premium_enabled),
      projects: f(nn(projectConnection), 'Projects (websites) of the account.', (c, args, ctx) => paged(ctx.ces, 'graphql projects', { table: 'websites', where: { client_id: c.id }, order: 'id' }, args), pageArgDefs),
    }),
  });
  const project: GraphQLObjectType = new GraphQLObjectType<Row, GqlContext>({
    name: 'Project', description: d('A project: a website of the account where the service runs (replaces the deprecated REST Website).'),
    fields: () => ({
      id: f(nn(GraphQLID), 'Identifier of the project (the REST `website_id`).', (p) => String(p.id)),
      name: f(nn(GraphQLString), 'Name of the project (the REST website `label`).', (p) => p.label),
      url: f(nn(GraphQLString), 'Address of the website.'),
      currency: f(nn(GraphQLString), 'Currency of the transactions of the project.'),
      timezone: f(nn(GraphQLString), 'Time zone of the project.'),
      languageAdmin: f(nn(GraphQLString), 'Language of the administration screens of the project.', (p) => p.language_admin),
      client: f(nn(client), 'The account owning the project.', (p, _a, ctx) => ctx.ces.db.prepare('SELECT * FROM clients WHERE id = ?').get(p.client_id)),
    }),
  });
  projectConnection = connection('Project', project, 'project');

  const conversationTag = new GraphQLObjectType<Row, GqlContext>({
    name: 'ConversationTag', description: d('A label operators put on conversations (replaces the deprecated REST Tag).'),
    fields: {
      id: f(nn(GraphQLID), 'Identifier of the tag.', (t) => String(t.id)),
      name: f(nn(GraphQLString), 'Text of the tag.'),
      projectIds: f(nnList(GraphQLID), 'Projects where the tag is offered.', (t) => list<number>(t.website_id).map(String)),
    },
  });

  const satisfactionSurvey = new GraphQLObjectType<Row, GqlContext>({
    name: 'SatisfactionSurvey', description: d('A visitor\'s answers to the satisfaction survey of one conversation (replaces the deprecated REST Satisfaction).'),
    fields: {
      id: f(nn(GraphQLID), 'Identifier of the response.', (s) => String(s.id)),
      conversationId: f(nn(uuidType), 'The conversation the survey was about (its UUID).', (s, _a, ctx) =>
        (ctx.ces.db.prepare('SELECT uuid FROM conversations WHERE id = ?').get(s.conversation_id) as Row | undefined)?.uuid ?? String(s.conversation_id)),
      projectId: f(nn(GraphQLID), 'Project of the conversation.', (s) => String(s.website_id)),
      operatorId: f(nn(GraphQLInt), 'Operator who handled the conversation.', (s) => s.operator_id),
      noteWelcome: f(nn(GraphQLFloat), 'Welcome rating, a percentage (REST `note_welcome`).', (s) => s.note_welcome),
      noteResolution: f(nn(GraphQLFloat), 'Resolution rating, a percentage (REST `note_resolution`).', (s) => s.note_resolution),
      nodeDelay: f(nn(GraphQLFloat), 'Delay rating, a percentage (REST `node_delay`, spelled as the spec writes it).', (s) => s.node_delay),
      comment: f(nn(GraphQLString), 'Free comment of the visitor.'),
      createdAt: f(nn(GraphQLString), 'When the survey was answered, ISO 8601 UTC.', (s) => iso(s.created_at)),
    },
  });

  const conversation = new GraphQLObjectType<Row, GqlContext>({
    name: 'Conversation', description: d('A conversation between a visitor and operators or bots.'),
    fields: {
      id: f(nn(uuidType), 'UUID of the conversation (the id webhook v2 events carry).', (c) => c.uuid),
      legacyId: f(nn(legacyType), 'Integer id of the conversation in REST API v2.', (c) => c.id),
      channel: f(nn(GraphQLString), 'Channel: `chat`, `call`, `video`, `social_a`...`social_e`, `sms`.'),
      projectId: f(nn(GraphQLID), 'Project (website) where the conversation took place.', (c) => String(c.website_id)),
      visitorId: f(nn(GraphQLString), 'Unique id of the visitor.', (c) => c.visitor_uid),
      visitorExternalId: f(GraphQLString, 'Caller\'s identifier of the visitor; null for offsite channels.', (c) => c.visitor_external_id),
      operatorId: f(GraphQLInt, 'Operator who handled the conversation last, if any.', (c) => c.operator_id),
      operatorIds: f(nnList(GraphQLInt), 'Every operator who took part.', (c) => list<number>(c.operator_ids)),
      ruleId: f(GraphQLID, 'Targeting rule that led to the conversation, if any (the REST `rule_id`).', (c) => (c.rule_id == null ? null : String(c.rule_id))),
      createdAt: f(nn(GraphQLString), 'Start, ISO 8601 UTC.', (c) => iso(c.created_at)),
      closedAt: f(GraphQLString, 'End, ISO 8601 UTC; null while open.', (c) => iso(c.closed_at)),
      tags: f(nnList(conversationTag), 'Tags put on the conversation.', (c, _a, ctx) => {
        const ids = list<number>(c.tag_list);
        if (!ids.length) return [];
        return ctx.ces.db.prepare(`SELECT * FROM tags WHERE client_id = ? AND id IN (${ids.map(() => '?').join(',')}) ORDER BY id`).all(c.client_id, ...ids);
      }),
      satisfactionSurvey: f(satisfactionSurvey, 'The visitor\'s satisfaction survey answers, if any.', (c, _a, ctx) =>
        row(ctx.ces, 'graphql survey', { table: 'satisfactions', where: { client_id: c.client_id, conversation_id: c.id }, order: 'id' }) ?? null),
    },
  });
  const conversationConnection = connection('Conversation', conversation, 'conversation');
  const tagConnection = connection('ConversationTag', conversationTag, 'conversation tag');
  const surveyConnection = connection('SatisfactionSurvey', satisfactionSurvey, 'satisfaction survey response');

  const channelAvailability = new GraphQLObjectType({
    name: 'ChannelAvailability', description: d('Availability of one channel.'),
    fields: { isAvailable: f(nn(GraphQLBoolean), 'True when a conversation on this channel would be answered now.', (a: { isAvailable: boolean }) => a.isAvailable) },
  });
  const routingRuleAvailabilityType = new GraphQLObjectType({
    name: 'RoutingRuleAvailability', description: d('Availability of a routing rule per channel, now.'),
    fields: {
      chat: f(nn(channelAvailability), 'Chat channel.', (a: ChannelAvailability) => ({ isAvailable: a.chat })),
      call: f(nn(channelAvailability), 'Call channel.', (a: ChannelAvailability) => ({ isAvailable: a.call })),
      video: f(nn(channelAvailability), 'Video channel.', (a: ChannelAvailability) => ({ isAvailable: a.video })),
    },
  });
  const routingRule = new GraphQLObjectType<Row, GqlContext>({
    name: 'RoutingRule', description: d('A rule that sends the conversations of a project on some channels to operators or bot agents.'),
    fields: {
      id: f(nn(GraphQLID), 'Identifier of the rule.', (r) => String(r.id)),
      name: f(nn(GraphQLString), 'Name of the rule.', (r) => r.label),
      projectId: f(nn(GraphQLID), 'Project the rule belongs to.', (r) => String(r.website_id)),
      channels: f(nnList(GraphQLString), 'Channels the rule routes: `chat`, `call`, `video`.', (r) => list<string>(r.channels)),
      availability: f(routingRuleAvailabilityType, `Availability per channel, now. Only ${LIMITS.graphqlAvailabilityPerQuery} such field is resolved per query; another one resolves to null with an error (G16).`, (r, _a, ctx) => {
        const policy = ctx.ces.policy.graphql;
        if (ctx.availabilityResolved >= policy.availabilityPerQuery) {
          throw new GraphQLError(`only ${LIMITS.graphqlAvailabilityPerQuery} routingRule availability may be resolved per query`, { extensions: { code: ERROR_CODES.availabilityLimit } });
        }
        ctx.availabilityResolved++;
        return routingRuleAvailability(ctx.ces, ctx.ces.bots.poller, ctx.clientId, String(r.id));
      }),
    },
  });
  const ruleConnection = connection('RoutingRule', routingRule, 'routing rule');

  const projectFilterArgs = {
    projectIds: { type: new GraphQLList(new GraphQLNonNull(GraphQLID)), description: d('Only these projects.') },
    channels: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)), description: d('Only these channels.') },
  };
  const interval = new GraphQLInputObjectType({
    name: 'DateTimeInterval', description: d('A period: `from` included, `to` excluded, ISO 8601.'),
    fields: {
      from: { type: new GraphQLNonNull(GraphQLString), description: d('Start, ISO 8601 date or date-time with zone.') },
      to: { type: new GraphQLNonNull(GraphQLString), description: d('End (excluded), ISO 8601 date or date-time with zone.') },
    },
  });

  /** Closed conversations of the caller's client (within [from, to) of closure when given), newest closure first; `name` names the read. */
  const closed = (ctx: GqlContext, name: string, args: Row, from: number | null, to: number | null) => paged(ctx.ces, name, {
    table: 'conversations', order: 'closed_at DESC, id DESC',
    where: {
      client_id: ctx.clientId, 'closed_at !=': null,
      ...(args.projectIds?.length ? { 'website_id in': args.projectIds.map((p: string) => idNum(p) ?? -1) } : {}),
      ...(args.channels?.length ? { 'channel in': args.channels } : {}),
      ...(from != null ? { 'closed_at >=': from } : {}),
      ...(to != null ? { 'closed_at <': to } : {}),
    },
  }, args);

  const query = new GraphQLObjectType<unknown, GqlContext>({
    name: 'Query', description: d('Everything a token\'s user may read, always limited to the user\'s own account.'),
    fields: (): GraphQLFieldConfigMap<unknown, GqlContext> => ({
      client: f(nn(client), 'The account of the token\'s user.', (_s, _a, ctx) => row(ctx.ces, 'graphql client', { table: 'clients', where: { id: ctx.clientId } })),
      project: f(project, 'One project of the account by id; null when the account has no such project.', (_s, args, ctx) => {
        const id = idNum(args.id);
        return id == null ? null : row(ctx.ces, 'graphql project', { table: 'websites', where: { id, client_id: ctx.clientId } }) ?? null;
      }, { id: { type: nn(GraphQLID), description: d('Identifier of the project.') } }),
      projects: f(nn(projectConnection), 'Projects of the account, as a connection (`edges { node { id name } }`).', (_s, args, ctx) =>
        paged(ctx.ces, 'graphql projects', { table: 'websites', where: { client_id: ctx.clientId }, order: 'id' }, args), pageArgDefs),
      conversationTag: f(conversationTag, 'One conversation tag by id; null when the account has no such tag.', (_s, args, ctx) => {
        const id = idNum(args.id);
        return id == null ? null : row(ctx.ces, 'graphql tag', { table: 'tags', where: { id, client_id: ctx.clientId } }) ?? null;
      }, { id: { type: nn(GraphQLID), description: d('Identifier of the tag.') } }),
      conversationTags: f(nn(tagConnection), 'Conversation tags of the account.', (_s, args, ctx) =>
        paged(ctx.ces, 'graphql tags', { table: 'tags', where: { client_id: ctx.clientId }, order: 'id' }, args), pageArgDefs),
      conversation: f(conversation, 'One conversation by UUID (`id`) or by REST integer id (`legacyId`), exactly one of them; null when the account has no such conversation.', (_s, args, ctx) => {
        if ((args.id == null) === (args.legacyId == null)) throw badInput('conversation needs exactly one of id (UUID) and legacyId (LegacyId).');
        return row(ctx.ces, 'graphql conversation', { table: 'conversations', where: { client_id: ctx.clientId, ...(args.id != null ? { uuid: args.id } : { id: args.legacyId }) } }) ?? null;
      }, {
        id: { type: UUIDScalar, description: d('UUID of the conversation (G27: declare it `$id: UUID!`).') },
        legacyId: { type: LegacyIdScalar, description: d('REST integer id of the conversation.') },
      }),
      searchClosedConversations: f(nn(conversationConnection), 'Closed conversations, newest closure first, optionally within `from`/`to` (closure time). Superseded by `closedConversations`, which requires an interval.', (_s, args, ctx) =>
        closed(ctx, 'graphql closed conversations', args, args.from ? parseInstant(args.from, 'from') : null, args.to ? parseInstant(args.to, 'to') : null), {
        ...projectFilterArgs,
        from: { type: GraphQLString, description: d('Closed at or after this instant, ISO 8601.') },
        to: { type: GraphQLString, description: d('Closed before this instant, ISO 8601.') },
        ...pageArgDefs,
      }),
      closedConversations: f(nn(conversationConnection), 'Conversations closed within a required interval, newest closure first.', (_s, args, ctx) => {
        const from = parseInstant(args.interval.from, 'interval.from');
        const to = parseInstant(args.interval.to, 'interval.to');
        if (from >= to) throw badInput('interval.from must be before interval.to');
        return closed(ctx, 'graphql closed conversations in an interval', args, from, to);
      }, { interval: { type: new GraphQLNonNull(interval), description: d('Closure period.') }, ...projectFilterArgs, ...pageArgDefs }),
      satisfactionSurveyResponses: f(nn(surveyConnection), 'Satisfaction survey responses of the account, newest first.', (_s, args, ctx) => {
        return paged(ctx.ces, 'graphql surveys', {
          table: 'satisfactions', order: 'created_at DESC, id DESC',
          where: {
            client_id: ctx.clientId,
            ...(args.projectIds?.length ? { 'website_id in': args.projectIds.map((p: string) => idNum(p) ?? -1) } : {}),
            ...(args.from ? { 'created_at >=': parseInstant(args.from, 'from') } : {}),
            ...(args.to ? { 'created_at <': parseInstant(args.to, 'to') } : {}),
          },
        }, args);
      }, {
        projectIds: projectFilterArgs.projectIds,
        from: { type: GraphQLString, description: d('Answered at or after this instant, ISO 8601.') },
        to: { type: GraphQLString, description: d('Answered before this instant, ISO 8601.') },
        ...pageArgDefs,
      }),
      routingRule: f(routingRule, 'One routing rule by id; null when the account has no such rule.', (_s, args, ctx) =>
        row(ctx.ces, 'graphql routing rule', { table: 'routing_rules', where: { id: args.id, client_id: ctx.clientId } }) ?? null,
      { id: { type: nn(GraphQLID), description: d('Identifier of the rule.') } }),
      routingRules: f(nn(ruleConnection), 'Routing rules of the account, oldest first.', (_s, args, ctx) =>
        paged(ctx.ces, 'graphql routing rules', { table: 'routing_rules', where: { client_id: ctx.clientId }, order: 'created_at, id' }, args), pageArgDefs),
    }),
  });

  const mutation = new GraphQLObjectType<unknown, GqlContext>({
    name: 'Mutation', description: d('Changes a user makes, for example to set up data for checks (routing rules are created through the platform API, G17).'),
    fields: {
      createConversationTag: f(nn(conversationTag), 'Creates a conversation tag offered on the given projects of the account.', (_s, args, ctx) => {
        const name = String(args.name).trim();
        if (!name) throw badInput('name must not be empty');
        const ids = (args.projectIds as string[]).map((p) => idNum(p));
        const own = new Set((ctx.ces.db.prepare('SELECT id FROM websites WHERE client_id = ?').all(ctx.clientId) as Row[]).map((r) => r.id));
        const foreign = ids.filter((p) => p == null || !own.has(p));
        if (!ids.length || foreign.length) throw badInput('projectIds must name at least one project of your account');
        const r = ctx.ces.db.prepare('INSERT INTO tags (client_id, name, website_id) VALUES (?, ?, ?)').run(ctx.clientId, name, JSON.stringify(ids));
        return ctx.ces.db.prepare('SELECT * FROM tags WHERE id = ?').get(Number(r.lastInsertRowid));
      }, {
        name: { type: new GraphQLNonNull(GraphQLString), description: d('Text of the tag.') },
        projectIds: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))), description: d('Projects of the account where the tag is offered.') },
      }),
    },
  });

  return new GraphQLSchema({ query, mutation, description: d('Conversational Engagement Service GraphQL API (reference implementation).') });
}
