// POST/PUT /operator bodies (G12): JSON or form (bracket lists `language_list[]=fr`), validated field by field with fails naming the field.
import type { FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { badRequest, RestFail } from '../envelope.js';
import { ROLES, LANGUAGE_ADMIN_OPERATOR } from '../../store/people-values.js';
import { ISO_639_1 } from './iso639.js';
import { clientIds } from './tenant.js';
import type { Row } from '../list.js';
import { foldLists } from '../form-lists.js';

const OLD_ROLES = ['operator', 'manager', 'admin'];

type Kind = 'string' | 'string?' | 'bool' | 'int' | 'priority' | 'list:string' | 'list:int' | 'int?';
/** Writable fields and their kinds; the stored column has the same name (lists are JSON arrays). */
const FIELDS: Record<string, Kind> = {
  name: 'string', first_name: 'string', pseudo: 'string', email: 'string', external_id: 'string?', role: 'string', roles: 'list:string',
  chat_enabled: 'bool', call_enabled: 'bool', video_enabled: 'bool', chat_max_number: 'int', chat_and_call: 'bool',
  chat_priority: 'priority', call_priority: 'priority', video_priority: 'priority', language_list: 'list:string', language_admin: 'string',
  group_id: 'int?', website_list: 'list:int', skill_list: 'list:int', sso_key: 'string',
};
export const CREATE_REQUIRED = ['name', 'first_name', 'email'] as const;

/** Fields whose value is a list. */
const LIST_FIELDS: ReadonlySet<string> = new Set(Object.entries(FIELDS).filter(([, k]) => k.startsWith('list:')).map(([f]) => f));

/**
 * The body as a flat object: form bracket keys (`x[]`) become lists, and so does a form field named in `lists` sent without
 * brackets (`roles=a`, or repeated `roles=a&roles=b`: G26, OpenAPI's form default); anything but an object is refused.
 */
export function bodyObject(req: FastifyRequest, lists: ReadonlySet<string> = new Set(), formAccepted = true): Record<string, unknown> {
  const b = req.body;
  const accepted = formAccepted ? 'application/json or application/x-www-form-urlencoded' : 'application/json';
  if (b === undefined || b === null || b === '') throw badRequest(`The request body is empty: send the fields as JSON${formAccepted ? ' or as application/x-www-form-urlencoded' : ''}.`);
  const type = req.headers['content-type'] ?? '';
  const form = formAccepted && /^application\/x-www-form-urlencoded/i.test(type);
  if (!form && !/^application\/json/i.test(type)) throw new RestFail(415, `Unsupported content type '${type}': send ${accepted}.`);
  if (typeof b !== 'object' || Array.isArray(b)) throw badRequest('The request body must be a JSON object or a form.');
  const out: Record<string, unknown> = {};
  // G26: `language_list[0]=fr` (PHP's http_build_query) is the list the spec's `language_list[]=fr` is.
  const fields = form ? foldLists(b as Record<string, unknown>, () => true) : b as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) {
    const name = k.endsWith('[]') ? k.slice(0, -2) : k;
    if (name in out) throw badRequest(`Field '${name}' is given more than once.`);
    // In a form, a list comes as repeated `x[]` keys; a single `x[]=` with an empty value is the empty list.
    out[name] = k.endsWith('[]') ? (Array.isArray(v) ? (form && v.length === 1 && v[0] === '' ? [] : v) : v === '' && form ? [] : [v])
      : form && lists.has(name) && !Array.isArray(v) ? [v] : v;
  }
  return out;
}

const isIntString = (v: unknown) => typeof v === 'string' && /^-?\d+$/.test(v);

/** Whether the request's body is a form (its values are text) rather than JSON (typed values). */
const isForm = (req: FastifyRequest) => /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');

/** A JSON value of the field's JSON type (the document's operator-write schema): JSON is typed, so `"1"` is not a boolean or a number. */
function jsonTyped(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'bool': return typeof v === 'boolean';
    case 'int': case 'priority': return typeof v === 'number';
    case 'int?': return v === null || typeof v === 'number';
    case 'list:int': return !Array.isArray(v) || v.every((x) => typeof x === 'number');
    default: return true;
  }
}

/** Converts one field to its stored value, or returns the reason it is invalid; a form's values are text, JSON's are typed. */
function convert(field: string, kind: Kind, v: unknown, form: boolean, priorities: readonly number[]): { value?: unknown; error?: string } {
  if (!form && !jsonTyped(kind, v)) {
    const what = { bool: 'a boolean (true or false)', int: 'an integer', priority: 'the number 0 or 10', 'int?': 'an integer or null', 'list:int': 'a list of integers' }[kind as string];
    return { error: `'${field}' must be ${what} in JSON (got ${JSON.stringify(v)}).` };
  }
  switch (kind) {
    case 'string': return typeof v === 'string' && v.trim() !== '' ? { value: v.trim() } : { error: `'${field}' must be a non-empty string.` };
    case 'string?': return v === null || typeof v === 'string' ? { value: v === '' ? null : v } : { error: `'${field}' must be a string or null.` };
    case 'bool':
      if (v === true || v === 1 || v === '1' || v === 'true') return { value: 1 };
      if (v === false || v === 0 || v === '0' || v === 'false') return { value: 0 };
      return { error: `'${field}' must be a boolean (true/false or 1/0).` };
    case 'int': case 'priority': case 'int?': {
      if (kind === 'int?' && (v === null || v === '' || v === 'null')) return { value: null };
      const n = typeof v === 'number' ? v : isIntString(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n)) return { error: `'${field}' must be an integer within ±${Number.MAX_SAFE_INTEGER}.` };
      if (kind === 'priority' && !priorities.includes(n)) return { error: `'${field}' must be ${priorities.join(' or ')} (got ${n}).` };
      if (kind === 'int' && n < 0) return { error: `'${field}' must be >= 0 (got ${n}).` };
      return { value: n };
    }
    case 'list:string': case 'list:int': {
      if (!Array.isArray(v)) return { error: `'${field}' must be a list (JSON array, or repeated ${field}[]= form fields).` };
      if (kind === 'list:string') return v.every((x) => typeof x === 'string') ? { value: v } : { error: `'${field}' must be a list of strings.` };
      const ns = v.map((x) => (typeof x === 'number' ? x : isIntString(x) ? Number(x) : NaN));
      return ns.every(Number.isSafeInteger) ? { value: ns } : { error: `'${field}' must be a list of integers within ±${Number.MAX_SAFE_INTEGER}.` };
    }
  }
}

/**
 * Validates a create (all required fields) or update (any non-empty subset) body; answers the columns to write.
 * Every problem is named in one fail message, so a caller fixes them at once.
 */
export function operatorWrite(req: FastifyRequest, mode: 'create' | 'update', current?: Row, formAccepted = true): Record<string, unknown> {
  const body = bodyObject(req, LIST_FIELDS, formAccepted);
  const errors: string[] = [];
  const cols: Record<string, unknown> = {};
  const unknown = Object.keys(body).filter((k) => !(k in FIELDS));
  if (unknown.length) errors.push(`Unknown field(s) ${unknown.map((u) => `'${u}'`).join(', ')}; accepted: ${Object.keys(FIELDS).join(', ')}.`);
  if (mode === 'update' && Object.keys(body).length === 0) errors.push('The body names no field to update.');
  if (mode === 'create') for (const f of CREATE_REQUIRED) if (body[f] === undefined) errors.push(`'${f}' is required.`);
  for (const [field, kind] of Object.entries(FIELDS)) {
    if (body[field] === undefined) continue;
    const r = convert(field, kind, body[field], isForm(req), req.server.ces.policy.rest.operatorPriorities);
    if (r.error) { errors.push(r.error); continue; }
    cols[field] = r.value;
  }
  if (typeof cols.email === 'string' && !new RegExp(req.server.ces.policy.rest.emailPattern).test(cols.email)) errors.push(`'email' must be a valid e-mail address (got ${JSON.stringify(cols.email)}).`);
  if (Array.isArray(cols.roles)) {
    const bad = (cols.roles as string[]).filter((r) => !(ROLES as readonly string[]).includes(r));
    if (bad.length) errors.push(`'roles' accepts ${ROLES.join(', ')} (got ${bad.join(', ')}).`);
    else if (!cols.roles.length) errors.push(`'roles' must name at least one role.`);
    else if (new Set(cols.roles).size !== cols.roles.length) errors.push(`'roles' lists a role twice.`);
  }
  if (cols.role !== undefined) {
    if (!OLD_ROLES.includes(cols.role as string)) errors.push(`'role' (deprecated) accepts ${OLD_ROLES.join(', ')} (got ${JSON.stringify(cols.role)}).`);
    else if (cols.roles !== undefined) errors.push(`Give either 'roles' or the deprecated 'role', not both.`);
    else cols.roles = [cols.role];
  }
  delete cols.role;
  if (cols.language_admin !== undefined && !(LANGUAGE_ADMIN_OPERATOR as readonly string[]).includes(cols.language_admin as string)) {
    errors.push(`'language_admin' accepts ${LANGUAGE_ADMIN_OPERATOR.join(', ')} (got ${JSON.stringify(cols.language_admin)}).`);
  }
  if (Array.isArray(cols.language_list)) {
    const bad = (cols.language_list as string[]).filter((l) => !ISO_639_1.has(l));
    if (bad.length) errors.push(`'language_list' accepts ISO 639 two-letter codes in lower case (got ${bad.join(', ')}).`);
    else if (new Set(cols.language_list).size !== cols.language_list.length) errors.push(`'language_list' lists a language twice.`);
  }
  // Ids must be the key's client's own; another client's id is reported exactly like a missing one.
  const ownIds = (field: 'website_list' | 'skill_list', resource: 'website' | 'skill') => {
    if (!Array.isArray(cols[field])) return;
    const own = clientIds(req, resource);
    const bad = (cols[field] as number[]).filter((id) => !own.has(id));
    if (bad.length) errors.push(`'${field}' names unknown ${resource} id(s) ${bad.join(', ')}.`);
    else if (new Set(cols[field] as number[]).size !== (cols[field] as number[]).length) errors.push(`'${field}' lists an id twice.`);
  };
  ownIds('website_list', 'website');
  ownIds('skill_list', 'skill');
  if (typeof cols.group_id === 'number' && !clientIds(req, 'group').has(cols.group_id)) errors.push(`'group_id' names an unknown group (${cols.group_id}).`);
  if (typeof cols.email === 'string') {
    const same = req.server.ces.db.prepare('SELECT id FROM operators WHERE client_id = ? AND lower(email) = lower(?) AND id != ?').get(req.client.id, cols.email, current?.id ?? -1) as { id: number } | undefined;
    if (same) errors.push(`'email' is already used by operator ${same.id}.`);
  }
  if (errors.length) throw badRequest(errors.join(' '));
  for (const k of ['roles', 'language_list', 'website_list', 'skill_list']) if (cols[k] !== undefined) cols[k] = JSON.stringify(cols[k]);
  if (mode === 'create') {
    return {
      pseudo: cols.first_name, roles: JSON.stringify(['operator']), chat_enabled: 1, call_enabled: 0, video_enabled: 0, chat_max_number: 3, chat_and_call: 0,
      chat_priority: 0, call_priority: 0, video_priority: 0, language_list: '[]', language_admin: 'en', group_id: null, website_list: '[]', skill_list: '[]',
      external_id: null, sso_key: randomBytes(12).toString('hex'), ...cols,
    };
  }
  return cols;
}
