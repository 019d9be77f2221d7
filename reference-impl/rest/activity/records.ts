// GET /tag, /transaction, /satisfaction, /callmeeting (and each by id): shapes, filters, the client's rows only.
import type { FastifyInstance } from 'fastify';
import { list as jsonList } from '../../store/db.js';
import { badRequest, restDate, success } from '../envelope.js';
import { F, intValue, kindsOf, listAnswer, parseList, pick, typed, type FilterFn, type Row } from '../list.js';
import type { BusinessRule } from '../openapi.js';
import { clientRows, meta, rowById } from './common.js';
import { bounds } from './period.js';

/** A date filter on a column: validated with the REST date forms, inclusive. */
const dateFilter = (col: string, edge: 'from' | 'to'): FilterFn => typed({ kind: 'date' }, (row, v, q) => {
  const b = bounds({ [edge]: v }, q!.policy);
  if (row[col] === undefined || b[edge] === undefined) return true;
  return edge === 'from' ? row[col] >= b.from! : row[col] <= b.to!;
});

interface Resource {
  /** Name in the unknown-id text and the path. */
  name: string;
  table: string;
  schema: string;
  filters: Record<string, FilterFn>;
  summary: readonly string[];
  shape: (row: Row) => Row;
  deprecated: boolean;
  listSummary: string;
  /** The spec lists no by-id route (call meeting): served so `_link` resolves, REF. */
  byIdIsExtension?: boolean;
}

function resources(app: FastifyInstance): Resource[] {
  return [
    {
      name: 'tag', table: 'tags', schema: 'rest/tag.json', deprecated: true, listSummary: 'Conversation tags (deprecated; GraphQL conversationTag)',
      filters: { website_id: F.listHas('website_id') },
      summary: ['name'],
      shape: (r) => ({
        id: r.id, name: r.name,
        website_id: jsonList<number>(r.website_id),
        _link: `/tag/${r.id}`,
      }),
    },
    {
      name: 'transaction', table: 'transactions', schema: 'rest/transaction.json', deprecated: false, listSummary: 'Transactions, linked or not to a conversation',
      filters: {
        website_id: F.int('website_id'),
        operator_id: F.int('operator_id'),
        // `null`: not linked to a conversation; `!null`: linked (REST-TRX-03).
        conversation_id: typed({ kind: 'id-or', values: ['null', '!null'] }, (row, v) => {
          if (v === 'null' || v === '!null') {
            if (row.id === undefined) return true;
            return v === 'null' ? row.conversation_id === null : row.conversation_id !== null;
          }
          if (!/^\d+$/.test(v)) throw badRequest(`filters[conversation_id] must be an integer, 'null' or '!null' (got ${JSON.stringify(v)}).`);
          return row.conversation_id === intValue('conversation_id', v);
        }),
        from: dateFilter('created_at', 'from'),
        to: dateFilter('created_at', 'to'),
      },
      summary: ['external_id', 'amount', 'created_at', 'conversation_id'],
      shape: (r) => ({
        id: r.id, external_id: r.external_id, visitor_uid: r.visitor_uid, visitor_email: r.visitor_email,
        amount: r.amount,
        created_at: restDate(r.created_at), website_id: r.website_id, operator_id: r.operator_id, conversation_id: r.conversation_id,
        _link: `/transaction/${r.id}`,
      }),
    },
    {
      name: 'satisfaction', table: 'satisfactions', schema: 'rest/satisfaction.json', deprecated: true, listSummary: 'Satisfaction survey answers (deprecated; GraphQL satisfactionSurveyResponses)',
      filters: {
        website_id: F.int('website_id'), operator_id: F.int('operator_id'),
        conversation_id: F.int('conversation_id'),
        from: dateFilter('created_at', 'from'), to: dateFilter('created_at', 'to'),
      },
      summary: ['conversation_id', 'created_at'],
      shape: (r) => ({
        id: r.id, note_welcome: r.note_welcome, note_resolution: r.note_resolution,
        // The spec spells the third note `node_delay`.
        node_delay: r.node_delay,
        comment: r.comment, created_at: restDate(r.created_at), website_id: r.website_id, operator_id: r.operator_id, conversation_id: r.conversation_id,
        _link: `/satisfaction/${r.id}`,
      }),
    },
    {
      name: 'callmeeting', table: 'callmeetings', schema: 'rest/callmeeting.json', deprecated: true, listSummary: 'Call meetings (deprecated)', byIdIsExtension: true,
      filters: {
        website_id: F.int('website_id'),
        from: dateFilter('start_at', 'from'), to: dateFilter('start_at', 'to'),
      },
      summary: ['status', 'start_at'],
      shape: (r) => ({
        id: r.id, phone_number: r.phone_number, visitor_uid: r.visitor_uid,
        status: r.status,
        start_at: restDate(r.start_at), website_id: r.website_id, targeting_rule_id: r.targeting_rule_id, skill_id: r.skill_id,
        _link: `/callmeeting/${r.id}`,
      }),
    },
  ];
}

export function registerRecords(app: FastifyInstance): void {
  for (const res of resources(app)) {
    const kinds = kindsOf(res.filters);
    // A list with a period: from must not be after to.
    const rules: BusinessRule[] = 'from' in kinds ? [{ name: 'from-after-to', summary: 'from is not after to', message: 'filters[from] must not be after filters[to].' }] : [];
    app.get(`/${res.name}`, meta({ summary: res.listSummary, list: true, filters: kinds, response: res.schema, deprecated: res.deprecated, rules }), async (req) => {
      const q = parseList(req, kinds);
      if (q.filters.from !== undefined || q.filters.to !== undefined) bounds(q.filters, q.policy);
      return listAnswer(clientRows(app, req, res.table), q, res.filters, (row, full) => (full ? res.shape(row) : pick(res.shape(row), res.summary)));
    });
    app.get(`/${res.name}/:id`, meta({
      summary: res.byIdIsExtension ? `One ${res.name} (not in the spec's table; served so that _link resolves)` : `One ${res.name}`,
      response: res.schema, deprecated: res.deprecated,
    }), async (req) => {
      parseList(req, {});
      return success(res.shape(rowById(app, req, res.table, res.name)));
    });
  }
}
