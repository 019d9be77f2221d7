// REST fuzzing from the OpenAPI document: one case generator per operation, the answer judged against what the document says.
import fc from 'fast-check';
import type { Target } from '../lib/target.js';
import { OpenApiDocument, type Operation, type Parameter } from '../lib/openapi.js';
import { SchemaValues, type Schema, type Validity } from './values.js';
import { common, Ownership, type Finding } from './oracles.js';
import { send, type Answer, type Auth, type Credentials, type FuzzRequest } from './exchange.js';

export interface RestCase { request: FuzzRequest; validity: Validity; invalidParts: string[] }
/** `examples`: cases sent before any generated one (the document's own examples), so what the document says works is always tried. */
export interface Surface<C> { name: string; operations: Array<{ id: string; arbitrary: fc.Arbitrary<C>; examples?: C[] }>; judge(opId: string, c: C, a: Answer): Finding[]; request(c: C): FuzzRequest }

/** Methods a REST path may be asked with; those a path does not document make the wrong-method operation. */
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Statuses an HTTP server answers before reading credentials: body too large, URI too long, headers too large. */
const TRANSPORT_LIMITS = [413, 414, 431];
/** Kind of resource of an answer item: the first segment of its `_link`, else of the operation's path (`conversation.json-unicode` → conversation). */
export const resourceOf = (link: unknown, path: string): string => {
  const p = typeof link === 'string' && link.startsWith('/') ? link : path;
  return (p.split('/')[1] ?? '').split('.')[0]!;
};

/** Items of a REST envelope's `data`: the object itself or each of the array. */
const itemsOf = (json: any): any[] => (Array.isArray(json?.data) ? json.data : json?.data && typeof json.data === 'object' ? [json.data] : []);

/** Bases of the document's servers as absolute URLs: relative ones (`/api/2`) against the target's origin; at least the target's REST base. */
function bases(doc: OpenApiDocument, target: Target): Array<{ url: string; variable: string }> {
  const origin = new URL(target.base_url).origin;
  const urls = doc.servers().map((s) => (s.startsWith('http') ? s : origin + s)).map((u) => u.replace(/\/$/, ''));
  const known: Array<{ url: string; variable: string }> = [{ url: target.rest_base_url.replace(/\/$/, ''), variable: 'CES_REST_BASE_URL' }];
  if (target.rest_ha_base_url) known.push({ url: target.rest_ha_base_url.replace(/\/$/, ''), variable: 'CES_REST_HA_BASE_URL' });
  const out = known.filter((k) => urls.length === 0 || urls.includes(k.url));
  return out.length ? out : known.slice(0, 1);
}

/** A body as a form carries it (formOf): scalars as text, lists as lists of text. */
function formReading(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]));
}

/** Form encoding the way PHP's http_build_query and the official client send it (G12/G26): `x[]=a&x[]=b`; null and nested objects do not fit. */
function formOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const parts: string[] = [];
  const enc = encodeURIComponent;
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) {
      if (v.some((x) => x === null || typeof x === 'object')) return undefined;
      if (v.length === 0) parts.push(`${enc(k)}%5B%5D=`);
      for (const x of v) parts.push(`${enc(k)}%5B%5D=${enc(String(x))}`);
    } else if (v === null || typeof v === 'object') return undefined;
    else parts.push(`${enc(k)}=${enc(String(v))}`);
  }
  return parts.join('&');
}

/** Harvest: every id each client can list (all pages of every parameterless GET), for the cross-client checks and as path values. */
export async function harvestRest(doc: OpenApiDocument, target: Target, creds: Credentials, own: Ownership, timeoutMs: number): Promise<void> {
  const base = bases(doc, target)[0]!;
  const lists = doc.operations().filter((o) => o.method === 'GET' && !o.path.includes('{') && !o.parameters.some((p) => p.required));
  for (let client = 0; client < creds.keys.length; client++) {
    for (const op of lists) {
      const hasLimit = op.parameters.some((p) => p.name === 'limit');
      const hasPage = op.parameters.some((p) => p.name === 'page');
      for (let page = 1; page <= 20; page++) {
        const query: Array<[string, string]> = [...(hasLimit ? [['limit', '100'] as [string, string]] : []), ...(hasPage ? [['page', String(page)] as [string, string]] : [])];
        const a = await send({ method: 'GET', baseVar: base.variable, baseUrl: base.url, path: op.path, query, headers: {}, auth: { kind: 'key', client, scheme: 'header' } }, creds, target.ca_file, timeoutMs);
        const items = a.status >= 200 && a.status < 300 ? itemsOf(a.json) : [];
        for (const it of items) if (Number.isInteger(it?.id)) own.add(client, resourceOf(it._link, op.path), it.id);
        const pages = a.json?.pagination?.pages;
        if (!hasPage || items.length === 0 || !(typeof pages === 'number' && page < pages)) break;
      }
    }
  }
  // An id several clients list is shared, or a list leaks: each client's own read by id (where the document has one) settles it.
  const reads = new Set(doc.operations().filter((o) => o.method === 'GET').map((o) => o.path));
  for (const { kind, id, clients } of own.overlaps()) {
    if (!reads.has(`/${kind}/{id}`)) continue;
    for (const client of clients) {
      const a = await send({ method: 'GET', baseVar: base.variable, baseUrl: base.url, path: `/${kind}/${encodeURIComponent(id)}`, query: [], headers: {}, auth: { kind: 'key', client, scheme: 'header' } }, creds, target.ca_file, timeoutMs);
      if (a.status === 404 || a.status === 403) own.remove(client, kind, id);
    }
  }
}

export function restSurface(doc: OpenApiDocument, target: Target, creds: Credentials, own: Ownership): Surface<RestCase> {
  const values = new SchemaValues((ref) => doc.follow({ $ref: ref }, '').node ?? {});
  const servers = bases(doc, target);
  const schemes = Object.values(doc.securitySchemes());
  const keySchemes = [
    ...(schemes.some((s) => s.type === 'apiKey' && s.in === 'header') ? ['header' as const] : []),
    ...(schemes.some((s) => s.type === 'apiKey' && s.in === 'query' && s.name === 'key') ? ['query' as const] : []),
    ...(schemes.some((s) => s.type === 'http' && s.scheme === 'basic') ? ['basic' as const] : []),
  ];
  const usable = keySchemes.length ? keySchemes : ['header' as const];
  const clients = creds.keys.map((_, i) => i);
  const authArb: fc.Arbitrary<Auth> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('key' as const), client: fc.constantFrom(...clients), scheme: fc.constantFrom(...usable) }), weight: 8 },
    { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('wrong' as const), scheme: fc.constantFrom(...usable), value: fc.constantFrom('invalid-key', 'x', '0', "' OR 1=1 --", 'A'.repeat(300)) }), weight: 1 },
  );
  /** A comma list parameter (an array in form style without explode: `filters[website_list]=1,2`). */
  const commaList = (p: Parameter) => p.explode === false && values.types(p.schema).includes('array');
  const paramReading = (p: Parameter, text: string): boolean => {
    if (commaList(p)) {
      const items = values.deref(p.schema).items ?? {};
      return doc.validate(p.pointer, text.split(',').map((x) => values.readings(x, items)[0] ?? x)) === null;
    }
    return values.readings(text, p.schema).some((v) => doc.validate(p.pointer, v) === null);
  };
  /** A valid value of a parameter as sent: a comma list joined by commas. */
  const validParam = (p: Parameter): fc.Arbitrary<string> => (commaList(p) ? values.valid(p.schema).map((v) => (Array.isArray(v) ? v.map(String).join(',') : String(v))) : values.validParam(p.schema));

  const opArbitrary = (op: Operation): fc.Arbitrary<RestCase> => {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query' && p.name !== 'key');
    // An id of another kind of resource, or of another client, is a valid value too: it must be refused without leaking.
    const idValues = (p: Parameter) => {
      const known = own.ids(resourceOf(undefined, op.path));
      return known.length ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: values.param(p.schema), weight: 2 }) : values.param(p.schema);
    };
    const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, idValues(p)])));
    // Two kinds of query: any mix of valid, boundary and hostile values; or well-formed (every value valid, optional parameters
    // now and then), which reaches the success paths that a case with one hostile value among ten never gets past.
    const anyQuery = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, values.param(p.schema)])), { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) });
    const wellFormedQuery = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, p.required ? validParam(p)
      : fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: validParam(p), weight: 1 })])));
    const queryArb = fc.oneof({ arbitrary: anyQuery, weight: 2 }, { arbitrary: wellFormedQuery, weight: 1 });
    // Body fields naming ids of a kind the clients own (`website_list`, `group_id`) take such ids (either client's) as valid values.
    const withKnownIds = (value: unknown): fc.Arbitrary<unknown> => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return fc.constant(value);
      const picks: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(value)) {
        const m = /^([a-z]+)_(list|id)$/.exec(k);
        const ids = m ? own.ids(m[1]!).map(Number).filter(Number.isSafeInteger) : [];
        if (!m || !ids.length) continue;
        if (m[2] === 'list' && Array.isArray(v)) picks[k] = fc.uniqueArray(fc.constantFrom(...ids), { maxLength: 3 });
        else if (m[2] === 'id' && typeof v === 'number') picks[k] = fc.constantFrom(...ids);
      }
      return Object.keys(picks).length ? fc.record(picks).map((p) => ({ ...(value as object), ...p })) : fc.constant(value);
    };
    const bodyTypes = op.body?.types ?? [];
    const bodyArb: fc.Arbitrary<{ type: string; text: string; validity: Validity; note: string } | undefined> = bodyTypes.length === 0 ? fc.constant(undefined) : fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 1 },
      {
        weight: 8,
        arbitrary: fc.tuple(fc.constantFrom(...bodyTypes), fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, fc.constant(false))).chain(([bt, good]) => {
          const schema: Schema = doc.at(bt.pointer) ?? {};
          return (good ? values.valid(schema).chain(withKnownIds) : values.invalid(schema)).map((value) => {
            const json = /json/i.test(bt.type);
            const text = json ? JSON.stringify(value) : formOf(value);
            // A value a form cannot carry (null, nested objects) goes as JSON instead.
            const type = text === undefined ? 'application/json' : bt.type;
            const sent = text ?? JSON.stringify(value);
            const documented = bodyTypes.some((t) => t.type === type);
            // A form carries text: it is judged by what the server reads, each value as text (the document's form schemas say so).
            const reading = /json/i.test(type) ? value : formReading(value);
            const validity: Validity = documented && doc.validate(bodyTypes.find((t) => t.type === type)!.pointer, reading) === null ? 'valid' : 'invalid';
            return { type, text: sent, validity, note: validity === 'valid' ? '' : `body ${JSON.stringify(value).slice(0, 120)} does not match the documented schema` };
          });
        }),
      },
      { arbitrary: fc.constantFrom('{', '[]', 'null', '"x"', 'a=1&a=2', '{"name":' + '['.repeat(5000)).map((text) => ({ type: 'application/json', text, validity: 'invalid' as Validity, note: 'body is not a JSON object' })), weight: 1 },
      { arbitrary: fc.constant({ type: 'text/plain', text: 'hello', validity: 'invalid' as Validity, note: 'content type text/plain is not documented' }), weight: 1 },
    );
    return fc.record({ server: fc.constantFrom(...servers.keys()), auth: authArb, path: pathArb, query: queryArb, body: bodyArb }).map((c) => {
      const invalidParts: string[] = [];
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const v = (c.path as Record<string, string>)[name] ?? '';
        const p = pathParams.find((x) => x.name === name)!;
        if (!paramReading(p, v)) invalidParts.push(`path ${name}=${JSON.stringify(v)}`);
        return encodeURIComponent(v);
      });
      const query: Array<[string, string]> = [];
      for (const [name, v] of Object.entries(c.query as Record<string, string | undefined>)) {
        if (v === undefined) continue;
        query.push([name, v]);
        if (!paramReading(queryParams.find((x) => x.name === name)!, v)) invalidParts.push(`${name}=${JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v)}`);
      }
      const headers: Record<string, string> = {};
      if (c.body) {
        headers['content-type'] = c.body.type;
        if (c.body.validity === 'invalid') invalidParts.push(c.body.note);
      } else if (op.body?.required) invalidParts.push('the required body is missing');
      const s = servers[c.server]!;
      const request: FuzzRequest = { method: op.method, baseVar: s.variable, baseUrl: s.url, path, query, headers, body: c.body?.text, auth: c.auth };
      return { request, validity: invalidParts.length ? 'invalid' : 'valid', invalidParts };
    });
  };

  /**
   * The document's example of an operation, sent by each client with the first documented key scheme: the required
   * parameters only (their `example`, path ids the client itself listed), the body's example. A plain list request is
   * where a list that leaks other clients' items shows; a create the document says is valid is where its status shows.
   */
  const examplesOf = (op: Operation): RestCase[] => {
    const bodyType = op.body?.types.find((t) => t.example !== undefined && t.example !== null && typeof t.example === 'object');
    if (op.body?.required && !bodyType) return [];
    const s = servers[0]!;
    return clients.flatMap((client) => {
      const invalidParts: string[] = [];
      let missing = false;
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const p = op.parameters.find((x) => x.in === 'path' && x.name === name);
        const id = own.idsOf(client, resourceOf(undefined, op.path))[0] ?? p?.example;
        if (id === undefined) missing = true;
        return encodeURIComponent(String(id ?? ''));
      });
      const query: Array<[string, string]> = [];
      for (const p of op.parameters.filter((x) => x.in === 'query' && x.required && x.name !== 'key')) {
        if (p.example === undefined) missing = true;
        else query.push([p.name, String(p.example)]);
      }
      if (missing) return [];
      const headers: Record<string, string> = bodyType ? { 'content-type': bodyType.type } : {};
      const body = bodyType ? (/json/i.test(bodyType.type) ? JSON.stringify(bodyType.example) : formOf(bodyType.example)) : undefined;
      if (bodyType && body === undefined) return [];
      if (bodyType && doc.validate(bodyType.pointer, /json/i.test(bodyType.type) ? bodyType.example : formReading(bodyType.example)) !== null) invalidParts.push('the documented body example does not match its schema');
      const request: FuzzRequest = { method: op.method, baseVar: s.variable, baseUrl: s.url, path, query, headers, body, auth: { kind: 'key', client, scheme: usable[0]! } };
      return [{ request, validity: invalidParts.length ? 'invalid' : 'valid', invalidParts }];
    });
  };

  const ops = doc.operations().filter((o) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(o.method));
  const byId = new Map(ops.map((o) => [o.id, o]));
  const methodsOf = new Map<string, string[]>();
  for (const o of ops) methodsOf.set(o.path, [...(methodsOf.get(o.path) ?? []), o.method]);
  const wrong = [...methodsOf].flatMap(([path, ms]) => ALL_METHODS.filter((m) => !ms.includes(m)).map((m) => ({ path, method: m })));
  const WRONG_METHOD = 'wrong method on a documented path';
  const wrongArb = fc.record({ pick: fc.constantFrom(...wrong), client: fc.constantFrom(...clients) }).map(({ pick, client }): RestCase => ({
    request: {
      method: pick.method, baseVar: servers[0]!.variable, baseUrl: servers[0]!.url, path: pick.path.replace(/\{[^}]+\}/g, () => String(own.ids(resourceOf(undefined, pick.path))[0] ?? 1)),
      query: [], headers: pick.method === 'GET' || pick.method === 'DELETE' ? {} : { 'content-type': 'application/json' }, body: pick.method === 'GET' || pick.method === 'DELETE' ? undefined : '{}',
      auth: { kind: 'key', client, scheme: usable[0]! },
    },
    validity: 'invalid', invalidParts: [`${pick.method} is not documented for ${pick.path}`],
  }));

  return {
    name: 'rest',
    operations: [...ops.map((o) => ({ id: `REST ${o.id}`, arbitrary: opArbitrary(o), examples: examplesOf(o) })), ...(wrong.length ? [{ id: `REST ${WRONG_METHOD}`, arbitrary: wrongArb }] : [])],
    request: (c) => c.request,
    judge(opId, c, a) {
      const out = common(a);
      if (a.status === 0) return out;
      const op = byId.get(opId.replace(/^REST /, ''));
      const auth = c.request.auth;
      const status = a.status;
      if (!op) {
        // The wrong-method operation: refused as a client error; a 405 says which methods exist (RFC 9110 §15.5.6).
        if (status < 400 || status >= 500) out.push({ oracle: 'wrong-method-accepted', message: `${c.request.method} ${c.request.path} answered ${status}, not a 4xx` });
        if (status === 405 && !a.headers.allow) out.push({ oracle: 'wrong-method-no-allow', message: '405 without an Allow header' });
        return out;
      }
      const refused = status === 401 || status === 403;
      if (op.secured && (auth.kind === 'none' || auth.kind === 'wrong')) {
        // Refusals of the HTTP layer (body, URI or header too large) come before authentication and reveal nothing.
        if (!refused && !TRANSPORT_LIMITS.includes(status)) out.push({ oracle: 'auth-not-enforced', message: `${auth.kind === 'none' ? 'no credentials' : 'a wrong key'}: answered ${status}, not 401/403${itemsOf(a.json).length ? ' with data' : ''}` });
      } else if (auth.kind === 'key' && refused) {
        out.push({ oracle: 'valid-key-refused', message: `the key of client ${auth.client + 1} sent as ${auth.scheme} (a documented scheme) was refused with ${status}` });
      }
      const documented = doc.answer(op, status);
      if (!documented.documented) out.push({ oracle: 'undocumented-status', key: `undocumented-status ${status}`, message: `answered ${status}; documented: ${op.statuses.join(', ')}` });
      else if (documented.schemaPointer && status < 500) {
        if (a.json === undefined) out.push({ oracle: 'schema', key: `schema ${status}`, message: `answer ${status} is not JSON (content-type ${a.headers['content-type'] ?? 'none'}): ${a.text.slice(0, 120)}` });
        else {
          const err = doc.validate(documented.schemaPointer, a.json);
          if (err) out.push({ oracle: 'schema', key: `schema ${status}`, message: `answer ${status} does not match its documented schema: ${err.slice(0, 400)}` });
        }
      }
      if (c.validity === 'invalid' && status >= 200 && status < 300) out.push({ oracle: 'accepted-invalid', message: `answered ${status} to invalid input: ${c.invalidParts.join('; ')}` });
      if (auth.kind === 'key' && status >= 200 && status < 300) {
        for (const it of itemsOf(a.json)) {
          if (it?.id === undefined) continue;
          const owner = own.ownerOtherThan(auth.client, resourceOf(it._link, op.path), it.id);
          if (owner !== undefined) out.push({ oracle: 'tenant-leak', message: `client ${auth.client + 1} was shown ${resourceOf(it._link, op.path)} ${it.id}, which only client ${owner + 1} owns` });
        }
      }
      return out;
    },
  };
}
