// GET /conversation.json-unicode[/{id}] (and the legacy /conversation[/{id}]): filters, the 3-month window, history formats.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { list as jsonList } from '../../store/db.js';
import { badRequest, restDate, success, TEXT } from '../envelope.js';
import type { BusinessRule } from '../openapi.js';
import { F, kindsOf, listAnswer, parseList, pick, typed, type FilterFn, type FilterKinds, type Row } from '../list.js';
import { clientRows, meta, rowById } from './common.js';
import { conversationWindow } from './period.js';
import { formatted, wellFormed } from './history.js';

/** Values of the `formatHistory` parameter. */
const FORMAT_HISTORY = ['0', '1'] as const;
/** Values of the `channel` filter; `social` matches every `social_*` channel (REST-CONV-04). */
export const CONVERSATION_CHANNEL_FILTER = ['chat', 'call', 'video', 'social'] as const;
/** Fields of a list item without `full=1` (REST-CONV-01). */
export const CONVERSATION_SUMMARY = ['channel', 'visitor_uid', 'operator_id', 'website_id', 'created_at', 'closed_at'] as const;

/** Rules between the period filters (period.ts), documented with the 400 they answer. */
const PERIOD_RULES: readonly BusinessRule[] = [
  { name: 'from-after-to', summary: 'from is not after to', message: 'filters[from] must not be after filters[to].' },
  { name: 'period-too-long', summary: 'from and to are at most 3 months apart (spec)', message: TEXT.periodTooLong },
];

const PATHS = { unicode: '/conversation.json-unicode', legacy: '/conversation' } as const;
type PathKind = keyof typeof PATHS;

function historyMode(app: FastifyInstance, req: FastifyRequest, kind: PathKind): 'entries' | 'formatted' {
  const raw = (req.query as Record<string, unknown>).formatHistory;
  if (raw !== undefined && !(FORMAT_HISTORY as readonly unknown[]).includes(raw)) throw badRequest(`'formatHistory' must be 0 or 1 (got ${JSON.stringify(raw)}).`);
  // Only the json-unicode path with formatHistory=0 gives well-formed entries; everything else is the legacy transcript (REST-HIST-04).
  return raw === '0' && app.ces.policy.rest.entriesPaths.includes(kind) ? 'entries' : 'formatted';
}

export function conversationResource(app: FastifyInstance, row: Row, kind: PathKind, mode: 'entries' | 'formatted'): Row {
  const stored = jsonList<unknown[]>(row.history);
  const history = mode === 'entries' ? wellFormed(stored) : formatted(stored);
  return {
    id: row.id,
    channel: row.channel,
    visitor_uid: row.visitor_uid,
    history,
    operator_answer: Boolean(row.operator_answer),
    operator_closed: Boolean(row.operator_closed),
    waitinglist: Boolean(row.waitinglist),
    page_type: row.page_type,
    created_at: restDate(row.created_at),
    closed_at: restDate(row.closed_at),
    website_id: row.website_id,
    operator_id: row.operator_id,
    skill_id: row.skill_id,
    rule_id: row.rule_id,
    tag_list: jsonList<number>(row.tag_list),
    xmpp_id: row.uuid,
    _link: `${PATHS[kind]}/${row.id}`,
  };
}

export function conversationFilters(app: FastifyInstance): Record<string, FilterFn> {
  return {
    channel: typed({ kind: 'enum', values: CONVERSATION_CHANNEL_FILTER }, (row, v) => {
      if (!(CONVERSATION_CHANNEL_FILTER as readonly string[]).includes(v)) throw badRequest(`filters[channel] must be one of ${CONVERSATION_CHANNEL_FILTER.join(', ')} (got ${JSON.stringify(v)}).`);
      return row.channel === undefined || (v === 'social' ? app.ces.policy.rest.socialChannels.includes(row.channel) : row.channel === v);
    }),
    // The period is applied before the filters (conversationWindow); these only accept the names.
    from: typed({ kind: 'date' }, () => true),
    to: typed({ kind: 'date' }, () => true),
    website_id: F.int('website_id'),
    operator_id: F.int('operator_id'),
    visitor_id: F.text('visitor_uid'),
    skill_id: F.int('skill_id'),
    tag_id: F.listHas('tag_list', 'tag_id'),
    rule_id: F.int('rule_id'),
  };
}

/** The client's conversations in the listing window, newest first (shared with the statistic checks' expectations). */
export function conversationsInWindow(app: FastifyInstance, req: FastifyRequest, filters: Record<string, string>): Row[] {
  const policy = app.ces.policy.rest;
  const win = conversationWindow(filters, { now: app.ces.clock.now(), maxMonths: policy.periodMaxMonths, windows: policy.periodWindows, defaultWindowExtraDays: policy.defaultWindowExtraDays, dateOnlyToCoversMs: policy.dateOnlyToCoversMs, dateTimeToCoversMs: policy.dateTimeToCoversMs });
  // The period in the read (index conv_client_created): the rows outside it, with their histories, are never read.
  return clientRows(app, req, 'conversations', 'created_at DESC, id DESC', { 'created_at >=': win.from, 'created_at <=': win.to });
}

export function registerConversations(app: FastifyInstance): void {
  const kinds: FilterKinds = kindsOf(conversationFilters(app));
  for (const kind of Object.keys(PATHS) as PathKind[]) {
    const legacy = kind === 'legacy';
    app.get(PATHS[kind], meta({
      summary: legacy ? 'Conversations with the legacy formatted history (use conversation.json-unicode?formatHistory=0)' : 'Conversations of the last 3 months or of the given period (at most 3 months)',
      list: true, filters: kinds, params: ['formatHistory'], values: { formatHistory: FORMAT_HISTORY }, rules: PERIOD_RULES,
      response: 'rest/conversation.json', deprecated: true,
    }), async (req) => {
      const q = parseList(req, kinds, ['formatHistory']);
      const mode = historyMode(app, req, kind);
      const filters = conversationFilters(app);
      for (const [name, value] of Object.entries(q.filters)) filters[name]!({}, value);
      const rows = conversationsInWindow(app, req, q.filters);
      return listAnswer(rows, q, filters, (row, full) => {
        const r = conversationResource(app, row, kind, mode);
        return full ? r : pick(r, CONVERSATION_SUMMARY);
      });
    });
    app.get(`${PATHS[kind]}/:id`, meta({
      summary: legacy ? 'One conversation with the legacy formatted history' : 'One conversation (formatHistory=0: well-formed history)',
      params: ['formatHistory'], values: { formatHistory: FORMAT_HISTORY }, response: 'rest/conversation.json', deprecated: true,
    }), async (req) => {
      parseList(req, {}, ['formatHistory']);
      const mode = historyMode(app, req, kind);
      return success(conversationResource(app, rowById(app, req, 'conversations', 'conversation'), kind, mode));
    });
  }
}
