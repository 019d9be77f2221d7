// OpenAPI 3.1 document of the REST API, built from route metadata and the JSON Schemas of fixtures/schemas/rest/, served at {rest_base_url}/openapi.json.
//
// Route metadata format (every REST route declares it, in both route files):
//   app.get('/path/:id', { config: { openapi: {
//     summary: 'One line saying what the route does',
//     list?: true,                       // a list: page, limit, full, filters[...] parameters and a `pagination` answer
//     filters?: { website_id: { kind: 'id' }, ... }, // accepted filters[<name>] and the kind of value each reads (list.ts FilterKind:
//                                        //   the same definition parses the value, so document and server agree)
//     deprecatedFilters?: ['website_id'],// filters kept for history, marked deprecated (e.g. the statistic filter website_id)
//     params?: ['formatHistory', ...],   // other query parameters the route accepts
//     values?: { formatHistory: ['0', '1'] }, // the only values a parameter accepts (an enum in the document)
//     extensions?: { 'x-indicator-channels': {...} }, // `x-` members of the operation (data a rule needs, machine-readable)
//     rules?: [{ name, summary, message }], // 400s that follow from a rule between values or from stored data (no schema can state
//                                        //   them): in the description and as examples of the operation's 400
//     response: 'rest/operator.json',    // $id of the schema of one `data` item (lists: each item; `$defs/summary` = the list subset)
//     body?: 'rest/operator-write.json', // $id of the request body schema (JSON and form)
//     bodyRequired?: ['name', ...],      // fields the body must have on this route (create), beyond what the shared schema says
//     unknownIds?: true,                 // answers 404 (UnknownId) for an id given in a filter that is not the key's client's
//     deprecated?: true,                 // the whole resource/route is deprecated
//   } } }, handler)
// The collector hook is added to the REST scope before any route, so it sees every route of both route files.
import type { FastifyInstance } from 'fastify';
import { allSchemas } from '../../lib/schemas.js';
import { LIMITS } from '../../lib/limits.js';
import { DATE_PATTERN } from './activity/period.js';
import { isListKind, type FilterKind, type FilterKinds } from './list.js';

/** A 400 that follows from a rule between values or from stored data, documented with the message it answers. */
export interface BusinessRule { name: string; summary: string; message: string }

export interface OpenApiRoute {
  summary: string;
  list?: boolean;
  filters?: FilterKinds;
  deprecatedFilters?: string[];
  params?: string[];
  values?: Record<string, readonly string[]>;
  rules?: readonly BusinessRule[];
  /** `x-` members of the operation: data its rules need, for tools that follow them (the statistic indicators' channels). */
  extensions?: Record<`x-${string}`, unknown>;
  response: string;
  body?: string;
  bodyRequired?: readonly string[];
  unknownIds?: boolean;
  deprecated?: boolean;
}

export interface CollectedRoute { method: string; path: string; openapi?: OpenApiRoute }

/** Routes seen by the collector; the same for both bases, so only the first base's routes are kept. */
export class RouteRegistry {
  routes: CollectedRoute[] = [];
  private seen = new Set<string>();
  private doc?: object;
  add(r: CollectedRoute) {
    const k = `${r.method} ${r.path}`;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.routes.push(r);
  }
  /** The document, built once after every route is registered. */
  document(): object { return (this.doc ??= buildOpenApi(this.routes)); }
}

/** Adds the onRoute hook collecting route metadata; call it on the REST scope before registering routes. */
export function collectRoutes(app: FastifyInstance, registry: RouteRegistry): void {
  app.addHook('onRoute', (opts) => {
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    const prefix = opts.prefix ?? '';
    const path = opts.url.startsWith(prefix) ? opts.url.slice(prefix.length) || '/' : opts.url;
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      registry.add({ method: m, path, openapi: (opts.config as { openapi?: OpenApiRoute } | undefined)?.openapi });
    }
  });
}

/** GET /openapi.json, behind the same key check as every REST route. */
export function openapiRoute(app: FastifyInstance, registry: RouteRegistry): void {
  app.get('/openapi.json', { config: { openapi: { summary: 'This OpenAPI 3.1 document (not wrapped in the envelope)', response: 'openapi' } } }, async () => {
    return registry.document();
  });
}

const MAX_ID = Number.MAX_SAFE_INTEGER;
/** An id: decimal digits only, from 0 to 2^53 - 1 (issue 14, item 6: anything else is a 400). */
const ID_SCHEMA = { type: 'integer', minimum: 0, maximum: MAX_ID };
const MAX_CHARS = LIMITS.restFilterValueMaxChars;
/** The most items a list filter can hold when every item is as long as `itemChars`: the comma list must fit the value limit. */
const maxItems = (itemChars: number) => Math.floor((MAX_CHARS + 1) / (itemChars + 1));
const G26 = "also sent as `filters[x][]=a&filters[x][]=b`, `filters[x][0]=a&filters[x][1]=b` or `filters[x]=a&filters[x]=b` (G26)";

/** The query parameter of one filter, stated from the kind of value it reads (list.ts FilterKind); every value is bounded. */
export function filterParameter(name: string, k: FilterKind): Record<string, unknown> {
  const text = { type: 'string', maxLength: MAX_CHARS };
  // Lists are the spec's comma lists: OpenAPI's form style without explode.
  const list = isListKind(k) ? { style: 'form', explode: false } : {};
  const of = (schema: object, description: string, example: unknown) => ({ name: `filters[${name}]`, in: 'query', required: false, ...list, schema, description, example });
  switch (k.kind) {
    case 'id': return of(ID_SCHEMA, `Only items whose ${name} is this id (decimal digits; no wildcard).`, 1);
    case 'ids': return of({ type: 'array', minItems: 1, maxItems: maxItems(String(MAX_ID).length), items: ID_SCHEMA },
      `Comma list of ids (\`1,2\`; decimal digits, no wildcard); ${G26}.`, [1, 2]);
    case 'text': return of(text, `Filter on ${name}; a value may contain * as a wildcard (matched in linear time); at most ${MAX_CHARS} characters.`, 'a*');
    case 'date': return of({ type: 'string', pattern: DATE_PATTERN },
      `${name === 'to' ? 'End' : 'Start'} of the period: YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC), a date of the calendar${name === 'to' ? '; a date alone covers its whole day' : ''}.`,
      name === 'to' ? '2024-02-01 00:00:00' : '2024-01-01 00:00:00');
    case 'enum': return of({ enum: [...k.values] }, `One of ${k.values.join(', ')}.`, k.values[0]);
    case 'enums': return of({ type: 'array', minItems: 1, maxItems: maxItems(Math.max(...k.values.map((v) => v.length))), items: { enum: [...k.values] } },
      `Comma list of names (each one of the listed values); ${G26}.`, [k.values[0]]);
    case 'id-or': return of({ anyOf: [ID_SCHEMA, { enum: [...k.values] }] }, `An id, or one of ${k.values.join(', ')}.`, 1);
    case 'id-or-text': return of({ anyOf: [ID_SCHEMA, { ...text, minLength: 1 }] }, 'An id, or the value that names a resource of a text-named kind.', 1);
  }
}

/** The decimal spellings (no leading zero) of the integers from 0 to `max`, as a pattern: a form carries every value as text. */
export function uintPattern(max: number): string {
  const m = String(max);
  const alts = ['0', ...(m.length > 1 ? [`[1-9][0-9]{0,${m.length - 2}}`] : [])];
  for (let i = 0; i < m.length; i++) {
    const low = i === 0 ? 1 : 0;
    const d = Number(m[i]);
    if (d > low) alts.push(`${m.slice(0, i)}[${low}-${d - 1}]${i < m.length - 1 ? `[0-9]{${m.length - 1 - i}}` : ''}`);
  }
  alts.push(m);
  return `^(?:${alts.join('|')})$`;
}

/**
 * The schema of a body sent as a form, from its JSON schema: a form has no types, so each value is stated as the text the server
 * reads (booleans `true`, `false`, `1`, `0`; integers in decimal; `null` or empty for no id); lists are the repeated field.
 */
export function formSchemaOf(schema: any): any {
  const value = (v: any): any => {
    const types: string[] = Array.isArray(v.type) ? v.type : v.type ? [v.type] : [];
    const { type: _t, minimum: _min, maximum, enum: values, items, ...rest } = v;
    if (types.includes('boolean')) return { ...rest, enum: ['true', 'false', '1', '0'] };
    if (types.includes('integer')) {
      const digits = { type: 'string', pattern: uintPattern(maximum ?? Number.MAX_SAFE_INTEGER) };
      return types.includes('null') ? { ...rest, anyOf: [digits, { enum: ['', 'null'] }] } : { ...rest, ...digits };
    }
    if (Array.isArray(values)) return { ...rest, enum: [...new Set(values.map(String))] };
    if (types.includes('array')) return { ...rest, type: 'array', items: value(items ?? {}) };
    if (types.includes('string')) return { ...rest, type: 'string' };
    return v;
  };
  const props = (p: Record<string, any> | undefined) => (p ? Object.fromEntries(Object.entries(p).map(([k, v]) => [k, value(v)])) : undefined);
  const walk = (node: any): any => ({
    ...node,
    ...(node.properties ? { properties: props(node.properties) } : {}),
    ...(node.oneOf ? { oneOf: node.oneOf.map(walk) } : {}),
    ...(node.anyOf ? { anyOf: node.anyOf.map(walk) } : {}),
  });
  const out = walk(schema);
  if (Array.isArray(out.examples)) out.examples = out.examples.map(formReadingOf);
  return out;
}

/** A JSON value as a form carries it: scalars as text, lists as lists of text. */
export function formReadingOf(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const text = (x: unknown) => (x === null ? 'null' : String(x));
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.map(text) : text(v)]));
}

/** The example answer of GET /openapi.json (the document itself, shortened). */
const OPENAPI_EXAMPLE = { openapi: '3.1.0', info: { title: 'Conversational Engagement Service REST API', version: '2.0' }, paths: {}, components: {} };

const name = (id: string) => id.replace(/^rest\//, '').replace(/\.json$/, '');
const ref = (id: string, pointer = '') => ({ $ref: `#/components/schemas/${name(id)}${pointer}` });

/** Rewrites a schema's `$ref`s to component paths (`#/x` of schema S → `#/components/schemas/S/x`) and drops `$id`/`$schema`. */
function componentOf(id: string, schema: any): any {
  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: any = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id' || k === '$schema') continue;
      if (k === '$ref' && typeof v === 'string') {
        const [file, pointer = ''] = v.split('#');
        const target = file ? (file.startsWith('rest/') ? file : `rest/${file}`) : id;
        out.$ref = `#/components/schemas/${name(target)}${pointer}`;
      } else out[k] = walk(v);
    }
    return out;
  };
  return walk(schema);
}

/** The example of a 400 for an invalid value (the shared BadRequest answer's). */
const INVALID_VALUE = { status: 'fail', message: "'page' must be an integer from 1 to 9007199254740991 (got \"0\")." };

/** The 400 of an operation with business rules: the shared answer, with one example per rule besides the invalid-value one. */
function badRequestWith(rules: readonly BusinessRule[]): object {
  return {
    description: 'fail: an invalid parameter, filter or body (the message names it), or a broken rule of the operation (its description lists them).',
    content: { 'application/json': { schema: ref('rest/envelope.json', '/$defs/fail'), examples: {
      'invalid-value': { summary: 'A value outside its schema', value: { meta: INVALID_VALUE } },
      ...Object.fromEntries(rules.map((r) => [r.name, { summary: r.summary, value: { meta: { status: 'fail', message: r.message } } }])),
    } } },
  };
}

export function buildOpenApi(routes: CollectedRoute[]): object {
  const schemas = Object.fromEntries(Object.entries(allSchemas()).filter(([id]) => id.startsWith('rest/')).sort(([a], [b]) => a.localeCompare(b)));
  const paths: Record<string, Record<string, unknown>> = {};
  const undocumented: string[] = [];
  /** Body schemas sent as forms too: each gets a `<name>-form` component. */
  const forms = new Set<string>();
  for (const r of [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))) {
    if (!r.openapi) { undocumented.push(`${r.method} ${r.path}`); continue; }
    const o = r.openapi;
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: unknown[] = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: ID_SCHEMA, example: 1 }));
    if (o.list) parameters.push({ $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/limit' }, { $ref: '#/components/parameters/full' });
    // A value set the route declares is the parameter's schema (an enum).
    const valuesOf = (n: string) => (o.values?.[n] ? { schema: { enum: [...o.values[n]!] }, example: o.values[n]![0] } : undefined);
    for (const [f, kind] of Object.entries(o.filters ?? {})) {
      parameters.push({ ...filterParameter(f, kind), ...(o.deprecatedFilters?.includes(f) ? { deprecated: true } : {}) });
    }
    for (const p of o.params ?? []) parameters.push({ name: p, in: 'query', required: false, schema: { type: 'string', maxLength: LIMITS.restFilterValueMaxChars }, ...valuesOf(p) });
    const item = o.response === 'openapi' ? { type: 'object', description: 'The OpenAPI document.' }
      : o.list && schemas[o.response]?.$defs?.summary ? { anyOf: [ref(o.response), ref(o.response, '/$defs/summary')], description: 'With full=1 every field; otherwise the summary subset.' }
      : ref(o.response);
    const okSchema = o.response === 'openapi' ? item : {
      type: 'object', required: ['meta', 'data', ...(o.list ? ['pagination'] : [])],
      properties: {
        meta: ref('rest/envelope.json', '/$defs/meta'),
        data: o.list ? { type: 'array', items: item } : item,
        ...(o.list ? { pagination: ref('rest/envelope.json', '/$defs/pagination') } : {}),
      },
    };
    const okCode = r.method === 'POST' ? '201' : '200';
    // The success example: the envelope around the item schema's first `examples` entry (an answer of the seeded reference).
    const itemExample = o.response === 'openapi' ? undefined : schemas[o.response]?.examples?.[0];
    const okExample = o.response === 'openapi' ? OPENAPI_EXAMPLE : itemExample === undefined ? undefined
      : o.list ? { meta: { status: 'success' }, data: [itemExample], pagination: { page: 1, pages: 1, limit: LIMITS.restPageDefault, count: 1 } }
      : { meta: { status: 'success' }, data: itemExample };
    const withRequired = (schema: object) => (o.bodyRequired?.length ? { allOf: [schema, { required: [...o.bodyRequired] }] } : schema);
    const bodySchema = o.body ? withRequired(ref(o.body)) : undefined;
    const formSchema = o.body ? withRequired({ $ref: `#/components/schemas/${name(o.body)}-form` }) : undefined;
    if (o.body) forms.add(o.body);
    // A list field of a form is its name repeated (`roles=a&roles=b`, OpenAPI's form default; G26 also reads `roles[]=a` and `roles[0]=a`).
    const listFields = Object.entries<any>(o.body ? schemas[o.body]?.properties ?? {} : {}).filter(([, p]) => p.type === 'array').map(([k]) => k);
    const encoding = listFields.length ? { encoding: Object.fromEntries(listFields.map((k) => [k, { style: 'form', explode: true }])) } : {};
    const bodyExample = o.body && schemas[o.body]?.examples?.[0] ? { example: schemas[o.body].examples[0] } : {};
    const rules = o.rules ?? [];
    const op: Record<string, unknown> = {
      summary: o.summary,
      ...(rules.length ? { description: `Besides each value's own schema, these rules are checked (400 fail when broken): ${rules.map((x) => x.summary).join('; ')}.` } : {}),
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').split(/[/._-]/).map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('')}`,
      ...(o.deprecated ? { deprecated: true } : {}),
      ...o.extensions,
      ...(parameters.length ? { parameters } : {}),
      // The body schema's first `examples` entry is the operation's example: a request the reference accepts (fuzzers send it first).
      ...(o.body ? { requestBody: { required: true, content: {
        'application/json': { schema: bodySchema, ...bodyExample },
        'application/x-www-form-urlencoded': { schema: formSchema, ...encoding, ...(bodyExample.example ? { example: formReadingOf(bodyExample.example) } : {}) },
      } } } : {}),
      responses: {
        [okCode]: { description: 'Success', content: { 'application/json': { schema: okSchema, ...(okExample === undefined ? {} : { example: okExample }) } } },
        '400': rules.length ? badRequestWith(rules) : { $ref: '#/components/responses/BadRequest' },
        '403': { $ref: '#/components/responses/Forbidden' },
        ...(path.includes('{') || o.unknownIds ? { '404': { $ref: '#/components/responses/UnknownId' } } : {}),
        '405': { $ref: '#/components/responses/MethodNotAllowed' },
        // The body of every method but GET is read (DELETE's too, though it needs none): too large or of another type is refused.
        ...(o.body || r.method !== 'GET' ? { '413': { $ref: '#/components/responses/TooLarge' }, '415': { $ref: '#/components/responses/UnsupportedMediaType' } } : {}),
        '414': { $ref: '#/components/responses/UriTooLong' },
        '431': { $ref: '#/components/responses/HeadersTooLarge' },
      },
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  const fail = (description: string, example: { status: string; message: string }) => ({ description, content: { 'application/json': { schema: ref('rest/envelope.json', '/$defs/fail'), example: { meta: example } } } });
  /** The failure envelope with its meta.status and meta.message pinned. */
  const envelopeOf = (status: object, message: object) => ({ allOf: [ref('rest/envelope.json', '/$defs/fail'), { properties: { meta: { properties: { status, message } } } }] });
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Conversational Engagement Service REST API',
      version: '2.0',
      description: 'REST API version 2 (reference implementation). Every answer is the envelope (meta.status, meta.message, data, pagination). Lists accept page, limit (default 20, at most 100: larger values are clamped), full=1 and filters[<name>]=<value> with * wildcards. Dates are YYYY-MM-DD HH:MM:SS.',
    },
    // Routes that forgot their metadata are named here (test/openapi.test.ts fails on them) rather than breaking the document.
    ...(undocumented.length ? { 'x-undocumented-routes': undocumented } : {}),
    servers: [
      { url: '/api/2', description: 'Standard platform ({rest_base_url})' },
      { url: '/ha/api/2', description: 'High-availability platform ({rest_ha_base_url})' },
    ],
    security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { basic: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'key' },
        basic: { type: 'http', scheme: 'basic', description: 'The API key as the username, any password.' },
      },
      parameters: {
        page: { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_ID, default: 1 }, example: 1, description: 'Page number; past the last page the answer has empty data and the right pagination.' },
        limit: { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_ID, default: LIMITS.restPageDefault }, example: LIMITS.restPageDefault, description: `Page size, at most ${LIMITS.restPageMax} (larger values are clamped to ${LIMITS.restPageMax}).` },
        full: { name: 'full', in: 'query', required: false, schema: { enum: ['0', '1'] }, example: '1', description: '1 shows every field of each item; otherwise the subset documented in the item schema.' },
      },
      responses: {
        BadRequest: fail('fail: invalid parameter, filter or body (the message names it).', INVALID_VALUE),
        Forbidden: { description: 'error: authentication failed (G10): no key, a wrong key, or different keys given several ways.', content: { 'application/json': { schema: envelopeOf({ const: 'error' }, { const: 'Forbidden' }), example: { meta: { status: 'error', message: 'Forbidden' } } } } },
        UnknownId: { description: "fail: no such id for the key's client (REST-ID-01).", content: { 'application/json': { schema: envelopeOf({ const: 'fail' }, { type: 'string', pattern: "^Unknown '[^']+' with 'id' .+\\.$" }), example: { meta: { status: 'fail', message: "Unknown 'operator' with 'id' 99." } } } } },
        MethodNotAllowed: { ...fail('fail: the path exists, not with this method.', { status: 'fail', message: 'Method PATCH is not allowed on /api/2/operator/1; allowed: DELETE, GET, HEAD, PUT.' }), headers: { Allow: { description: 'The methods the path accepts.', schema: { type: 'string' } } } },
        TooLarge: fail(`fail: the body is over ${LIMITS.restBodyMaxBytes} bytes.`, { status: 'fail', message: 'Request body too large.' }),
        UriTooLong: fail(`fail: the path and query are over ${LIMITS.restUriMaxChars} characters.`, { status: 'fail', message: `The request URI is 9000 characters long; at most ${LIMITS.restUriMaxChars} are accepted.` }),
        UnsupportedMediaType: fail('fail: the body is neither application/json nor application/x-www-form-urlencoded.', { status: 'fail', message: "Unsupported content type 'text/plain': send application/json or application/x-www-form-urlencoded." }),
        HeadersTooLarge: { description: 'The request line and headers are over 16 KiB: refused by the HTTP server before the service reads it (no body).' },
      },
      schemas: Object.fromEntries([
        ...Object.entries(schemas).map(([id, s]) => [name(id), componentOf(id, s)]),
        ...[...forms].sort().map((id) => [`${name(id)}-form`, { ...formSchemaOf(componentOf(id, schemas[id])), title: `${schemas[id].title ?? name(id)} (form)` }]),
      ].sort(([a], [b]) => String(a).localeCompare(String(b)))),
    },
  };
}
