// Stored rows → REST resources (full, and the documented list subset without full=1) for client, website, operator, group, skill, visitor.
import type { ServiceContext } from '../../context.js';
import { list } from '../../store/db.js';
import { restDate } from '../envelope.js';
import { pick, type Row } from '../list.js';
import { allSchemas } from '../../../lib/schemas.js';

const DAY_MS = 86_400_000;

/** The list subset of a resource is the `$defs/summary` of its JSON Schema, so schema, OpenAPI and answers never disagree. */
const SUMMARY_FIELDS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(allSchemas())
  .filter(([id, s]) => id.startsWith('rest/') && Array.isArray(s.$defs?.summary?.required))
  .map(([id, s]) => [id.slice('rest/'.length, -'.json'.length), (s.$defs.summary.required as string[]).filter((x) => x !== 'id' && x !== '_link')]));
export function summaryFields(resource: string): readonly string[] {
  const f = SUMMARY_FIELDS.get(resource);
  if (!f) throw new Error(`fixtures/schemas/rest/${resource}.json has no $defs.summary`);
  return f;
}
const shaped = (resource: string, full: Row, isFull: boolean) => (isFull ? full : pick(full, summaryFields(resource)));

export function client(row: Row, isFull = true): Row {
  return shaped('client', { id: row.id, lang: row.lang, premium_enabled: !!row.premium_enabled, _link: `/client/${row.id}` }, isFull);
}

export function website(row: Row, isFull = true): Row {
  return shaped('website', {
    id: row.id, url: row.url, label: row.label, client_id: row.client_id, currency: row.currency, language_admin: row.language_admin, timezone: row.timezone,
    _link: `/website/${row.id}`,
  }, isFull);
}

/** Deprecated `role`: the highest of the roles that the old field knows (expert counts as operator). */
export function roleOf(roles: string[]): 'operator' | 'manager' | 'admin' {
  return roles.includes('admin') ? 'admin' : roles.includes('manager') ? 'manager' : 'operator';
}

export function operator(ces: ServiceContext, row: Row, isFull = true): Row {
  const roles = list<string>(row.roles);
  return shaped('operator', {
    id: row.id, name: row.name, first_name: row.first_name, pseudo: row.pseudo, email: row.email, external_id: row.external_id ?? null,
    role: roleOf(roles), roles,
    chat_enabled: !!row.chat_enabled, call_enabled: !!row.call_enabled, video_enabled: !!row.video_enabled,
    chat_max_number: row.chat_max_number, chat_and_call: !!row.chat_and_call,
    chat_priority: row.chat_priority, call_priority: row.call_priority, video_priority: row.video_priority,
    language_list: list<string>(row.language_list), language_admin: row.language_admin, group_id: row.group_id ?? null,
    website_list: list(row.website_list), skill_list: list(row.skill_list), sso_key: row.sso_key,
    _link: `/operator/${row.id}`,
  }, isFull);
}

/** Ids of the client's operators matching a SQL condition on the operators table. */
function operatorIds(ces: ServiceContext, clientId: number, where: string, arg: number): number[] {
  return (ces.db.prepare(`SELECT id FROM operators WHERE client_id = ? AND ${where} ORDER BY id`).all(clientId, arg) as Array<{ id: number }>).map((r) => r.id);
}

/** Parent ids of a group, nearest first; a cycle in stored data stops the walk instead of looping. */
function parentChain(ces: ServiceContext, clientId: number, parentId: number | null): number[] {
  const chain: number[] = [];
  let cur = parentId;
  while (cur !== null && cur !== undefined && !chain.includes(cur)) {
    chain.push(cur);
    cur = (ces.db.prepare('SELECT parent_id FROM groups WHERE id = ? AND client_id = ?').get(cur, clientId) as { parent_id: number | null } | undefined)?.parent_id ?? null;
  }
  return chain;
}

export function group(ces: ServiceContext, row: Row, isFull = true): Row {
  return shaped('group', {
    id: row.id, name: row.name, created_at: restDate(row.created_at), parent_id: row.parent_id ?? null,
    operator_list: isFull ? operatorIds(ces, row.client_id, 'group_id = ?', row.id) : [],
    parent_list: !isFull ? [] : parentChain(ces, row.client_id, row.parent_id ?? null),
    _link: `/group/${row.id}`,
  }, isFull);
}

export function skill(ces: ServiceContext, row: Row, isFull = true): Row {
  return shaped('skill', {
    id: row.id, name: row.name, order: row.order, created_at: restDate(row.created_at), parent_id: row.parent_id ?? null,
    operator_list: isFull ? operatorIds(ces, row.client_id, 'EXISTS (SELECT 1 FROM json_each(operators.skill_list) WHERE value = ?)', row.id) : [],
    _link: `/skill/${row.id}`,
  }, isFull);
}

export function visitor(row: Row, isFull = true): Row {
  return shaped('visitor', {
    id: row.id, unique_id: row.unique_id, external_id: row.external_id ?? null, lastname: row.lastname, firstname: row.firstname,
    address: row.address, city: row.city, zip: row.zip, country: row.country, phone: row.phone, email: row.email, browser: row.browser,
    website_id: list(row.website_id), created_at: restDate(row.created_at), _link: `/visitor/${row.id}`,
  }, isFull);
}

/** GET /operator/{id}/statistic, computed from stored conversations and satisfactions. */
export function operatorStatistic(ces: ServiceContext, row: Row): Row {
  const conv = ces.db.prepare(`SELECT COUNT(*) AS n FROM conversations WHERE client_id = ? AND (operator_id = ? OR EXISTS (SELECT 1 FROM json_each(conversations.operator_ids) WHERE value = ?))`)
    .get(row.client_id, row.id, row.id) as { n: number };
  const sat = ces.db.prepare('SELECT AVG((note_welcome + note_resolution + node_delay) / 3.0) AS rate FROM satisfactions WHERE client_id = ? AND operator_id = ?')
    .get(row.client_id, row.id) as { rate: number | null };
  return {
    id: row.id, conversation_number: conv.n, experience: Math.max(0, Math.floor((ces.clock.now() - row.created_at) / DAY_MS)),
    satisfaction_global_rate: sat.rate === null ? null : Math.round(sat.rate * 100) / 100, _link: `/operator/${row.id}/statistic`,
  };
}

/** GET /operator/{id}/profile; an operator who never wrote a profile has empty texts. */
export function operatorProfile(ces: ServiceContext, row: Row): Row {
  const p = (ces.db.prepare('SELECT * FROM operator_profiles WHERE user_id = ?').get(row.id) as Row | undefined) ?? {};
  return {
    id: row.id, user_id: row.id, status: p.status ?? '', description: p.description ?? '', social_a: p.social_a ?? '', social_b: p.social_b ?? '',
    city: p.city ?? '', country: p.country ?? '', _link: `/operator/${row.id}/profile`,
  };
}
