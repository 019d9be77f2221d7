// GraphQL fuzzing from the target's introspected schema: one case generator per root field (typed variables, valid or not, and
// random selections), plus hostile documents (deep nesting, many aliases and fragments); answers judged against the schema.
import fc from 'fast-check';
import {
  buildClientSchema, getIntrospectionQuery, getNamedType, isAbstractType, isEnumType, isInputObjectType, isListType, isNonNullType,
  isObjectType, isScalarType, type GraphQLField, type GraphQLInputType, type GraphQLNamedType, type GraphQLOutputType, type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { Target } from '../lib/target.js';
import { common, Ownership, type Finding } from './oracles.js';
import { send, type Answer, type Auth, type Credentials, type FuzzRequest } from './exchange.js';
import { hostileString, type Validity } from './values.js';
import type { Surface } from './rest.js';

/** A selected field: response key, field name, sub-selection (objects), inline fragments per concrete type (abstract types). */
interface Sel { field: string; sub?: Sel[]; on?: Record<string, Sel[]> }
export interface GqlCase { request: FuzzRequest; validity: Validity; invalidParts: string[]; root?: { type: 'query' | 'mutation'; field: string; sel: Sel[] } }
interface Tagged { v: unknown; ok: boolean }

const ACCEPT = 'application/graphql-response+json, application/json;q=0.9';
const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);
/** Deepest object level of generated selections (the service's depth limit is 10; deeper documents come from the hostile generator). */
const SELECTION_DEPTH = 4;

const render = (sels: Sel[]): string => sels.map((s) => `${s.field}${s.sub ? ` { ${render(s.sub)} }` : ''}${s.on ? ` ${Object.entries(s.on).map(([t, ss]) => `... on ${t} { ${render(ss)} }`).join(' ')}` : ''}`).join(' ');

export async function graphqlToken(target: Target, user: { username: string; password: string }, timeoutMs: number): Promise<string> {
  const a = await send({
    method: 'POST', baseVar: 'CES_BASE_URL', baseUrl: target.base_url.replace(/\/$/, ''), path: '/oauth2/token', query: [],
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, auth: { kind: 'none' },
    body: new URLSearchParams({ grant_type: 'password', username: user.username, password: user.password }).toString(),
  }, { keys: [], tokens: [] }, target.ca_file, timeoutMs);
  const token = a.json?.access_token;
  if (a.status !== 200 || typeof token !== 'string') throw new Error(`POST ${target.base_url}/oauth2/token for ${user.username} answered ${a.status} without access_token`);
  return token;
}

const gqlRequest = (target: Target, auth: Auth, document: string, variables?: Record<string, unknown>): FuzzRequest => ({
  method: 'POST', baseVar: 'CES_GRAPHQL_URL', baseUrl: target.graphql_url, path: '', query: [], auth,
  headers: { 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(variables ? { query: document, variables } : { query: document }),
});

export async function introspect(target: Target, creds: Credentials, timeoutMs: number): Promise<GraphQLSchema> {
  const a = await send(gqlRequest(target, { kind: 'bearer', client: 0 }, getIntrospectionQuery()), creds, target.ca_file, timeoutMs);
  if (!a.json?.data?.__schema) throw new Error(`introspection of ${target.graphql_url} answered ${a.status}: ${a.text.slice(0, 200)}`);
  return buildClientSchema(a.json.data as IntrospectionQuery);
}

/** The objects of an answer that carry `__typename` and `id`. */
function typedIds(value: unknown, out: Array<{ type: string; id: string }> = []): Array<{ type: string; id: string }> {
  if (Array.isArray(value)) for (const v of value) typedIds(v, out);
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.__typename === 'string' && (typeof o.id === 'string' || typeof o.id === 'number')) out.push({ type: o.__typename, id: String(o.id) });
    for (const v of Object.values(o)) typedIds(v, out);
  }
  return out;
}

/** A selection of `__typename` and `id` down to a few levels: what each client can see, for the cross-client checks. */
function idSelection(type: GraphQLNamedType, depth: number): Sel[] | undefined {
  if (!isObjectType(type) || depth > 4) return undefined;
  const out: Sel[] = [{ field: '__typename' }];
  for (const f of Object.values(type.getFields())) {
    if (f.name === 'id') out.push({ field: 'id' });
    if (f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const sub = idSelection(getNamedType(f.type), depth + 1);
    if (sub && sub.length > 1) out.push({ field: f.args.some((a) => a.name === 'first') ? `${f.name}(first: 10)` : f.name, sub });
  }
  return out;
}

export async function harvestGraphql(schema: GraphQLSchema, target: Target, creds: Credentials, own: Ownership, timeoutMs: number): Promise<void> {
  const query = schema.getQueryType();
  if (!query) return;
  for (let client = 0; client < creds.tokens.length; client++) {
    for (const f of Object.values(query.getFields())) {
      if (f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
      const sub = idSelection(getNamedType(f.type), 1);
      const doc = `{ ${f.args.some((a) => a.name === 'first') ? `${f.name}(first: 100)` : f.name}${sub ? ` { ${render(sub)} }` : ''} }`;
      const a = await send(gqlRequest(target, { kind: 'bearer', client }, doc), creds, target.ca_file, timeoutMs);
      for (const { type, id } of typedIds(a.json?.data)) own.add(client, type, id);
    }
  }
  // An id several clients see is shared, or a list leaks: each client's own read by id (`project(id:)` for Project) settles it.
  const fields = query.getFields();
  for (const { kind, id, clients } of own.overlaps()) {
    const read = fields[kind.charAt(0).toLowerCase() + kind.slice(1)];
    if (!read || !read.args.some((x) => x.name === 'id') || getNamedType(read.type).name !== kind) continue;
    for (const client of clients) {
      const a = await send(gqlRequest(target, { kind: 'bearer', client }, `query ($id: ${read.args.find((x) => x.name === 'id')!.type.toString()}) { ${read.name}(id: $id) { __typename } }`, { id }), creds, target.ca_file, timeoutMs);
      if (a.json?.data && a.json.data[read.name] === null) own.remove(client, kind, id);
    }
  }
}

export function graphqlSurface(schema: GraphQLSchema, target: Target, creds: Credentials, own: Ownership): Surface<GqlCase> {
  const clients = creds.tokens.map((_, i) => i);
  const authArb: fc.Arbitrary<Auth> = fc.oneof(
    { arbitrary: fc.constantFrom(...clients).map((client): Auth => ({ kind: 'bearer', client })), weight: 8 },
    { arbitrary: fc.constant<Auth>({ kind: 'none' }), weight: 1 },
    { arbitrary: fc.constantFrom('invalid-token', 'x', "' OR 1=1 --").map((value): Auth => ({ kind: 'wrong', scheme: 'bearer', value })), weight: 1 },
  );

  /** An input value with whether GraphQL's input coercion accepts it; `kind` steers ID values to known ids of that type. */
  const input = (t: GraphQLInputType, kind: string | undefined, depth = 0): fc.Arbitrary<Tagged> => {
    const ok = (a: fc.Arbitrary<unknown>) => a.map((v) => ({ v, ok: true }));
    const bad = (a: fc.Arbitrary<unknown>) => a.map((v) => ({ v, ok: false }));
    if (isNonNullType(t)) return fc.oneof({ arbitrary: input(t.ofType, kind, depth), weight: 12 }, { arbitrary: bad(fc.constant(null)), weight: 1 });
    const nullable = (a: fc.Arbitrary<Tagged>) => fc.oneof({ arbitrary: a, weight: 10 }, { arbitrary: ok(fc.constant(null)), weight: 1 });
    if (isListType(t)) {
      return nullable(fc.oneof(
        { arbitrary: fc.array(input(t.ofType, kind, depth + 1), { maxLength: 4 }).map((xs) => ({ v: xs.map((x) => x.v), ok: xs.every((x) => x.ok) })), weight: 4 },
        // A single value where a list is expected is coerced to a list of one (GraphQL spec, input coercion of lists); a null
        // there is the (nullable) list itself being null, which is valid.
        { arbitrary: input(t.ofType, kind, depth + 1).map((x) => (x.v === null ? { v: null, ok: true } : x)), weight: 1 },
      ));
    }
    if (isEnumType(t)) return nullable(fc.oneof({ arbitrary: ok(fc.constantFrom(...t.getValues().map((v) => v.name))), weight: 6 }, bad(fc.constantFrom('NOT_A_VALUE', 1))));
    if (isInputObjectType(t)) {
      const fields = Object.values(t.getFields());
      if (depth > 3) return ok(fc.constant(null));
      const model = Object.fromEntries(fields.map((f) => [f.name, input(f.type, undefined, depth + 1)]));
      const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name);
      return nullable(fc.oneof(
        { arbitrary: fc.record(model, { requiredKeys: required }).map((r) => ({ v: Object.fromEntries(Object.entries(r).map(([k, x]) => [k, x.v])), ok: Object.values(r).every((x) => x.ok) })), weight: 6 },
        ...(required.length ? [{ arbitrary: bad(fc.constant({})), weight: 1 }] : []),
        { arbitrary: bad(fc.constant({ __unexpected__: 1 })), weight: 1 },
      ));
    }
    const ids = kind ? own.ids(kind) : [];
    switch (isScalarType(t) ? t.name : '') {
      case 'Int': return nullable(fc.oneof({ arbitrary: ok(fc.oneof(fc.integer({ min: -5, max: 150 }), fc.constantFrom(0, -1, INT_MAX, INT_MIN))), weight: 6 }, bad(fc.constantFrom(INT_MAX + 1, INT_MIN - 1, 1.5, '1', true, 1e30))));
      case 'Float': return nullable(fc.oneof({ arbitrary: ok(fc.double({ noNaN: true, noDefaultInfinity: true })), weight: 6 }, bad(fc.constantFrom('1.5', true))));
      case 'Boolean': return nullable(fc.oneof({ arbitrary: ok(fc.boolean()), weight: 6 }, bad(fc.constantFrom('true', 1))));
      case 'ID': return nullable(fc.oneof(
        ...(ids.length ? [{ arbitrary: ok(fc.constantFrom(...ids)), weight: 6 }] : []),
        { arbitrary: ok(fc.oneof(fc.uuid(), fc.integer({ min: 0, max: 10_000 }).map(String), hostileString)), weight: 3 },
        { arbitrary: ok(fc.integer({ min: 0, max: 1000 })), weight: 1 },
        bad(fc.constantFrom(1.5, true, {}, [])),
      ));
      case 'String': return nullable(fc.oneof(
        { arbitrary: ok(fc.oneof(fc.string({ maxLength: 20 }), fc.date({ min: new Date('2015-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString()), hostileString)), weight: 6 },
        bad(fc.constantFrom(1, true, {})),
      ));
      // A custom scalar: its format is the server's; anything but a string is very likely wrong, but not known to be.
      default: return nullable(ok(fc.oneof(fc.uuid(), fc.string({ maxLength: 12 }), fc.integer(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), ...(ids.length ? [fc.constantFrom(...ids)] : []))));
    }
  };

  const selection = (t: GraphQLOutputType, depth: number): fc.Arbitrary<Sel[] | undefined> => {
    const named = getNamedType(t);
    if (isAbstractType(named)) {
      const possible = schema.getPossibleTypes(named).slice(0, 4);
      if (depth >= SELECTION_DEPTH || possible.length === 0) return fc.constant([{ field: '__typename' }]);
      return fc.tuple(...possible.map((p) => selection(p, depth))).map((subs) => [{ field: '__typename' }, { field: '__typename', on: Object.fromEntries(possible.map((p, i) => [p.name, subs[i] ?? [{ field: '__typename' }]])) }]);
    }
    if (!isObjectType(named)) return fc.constant(undefined);
    const fields = Object.values(named.getFields()).filter((f) => !f.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined))
      .filter((f) => depth < SELECTION_DEPTH || !isObjectType(getNamedType(f.type)) && !isAbstractType(getNamedType(f.type)));
    const always: Sel[] = [{ field: '__typename' }, ...(named.getFields().id ? [{ field: 'id' }] : [])];
    if (!fields.length) return fc.constant(always);
    return fc.subarray(fields, { minLength: 1, maxLength: Math.min(4, fields.length) }).chain((picked) =>
      fc.tuple(...picked.map((f) => selection(f.type, depth + 1))).map((subs) => [
        ...always,
        ...picked.filter((f) => !always.some((a) => a.field === f.name)).map((f, i) => ({ field: f.name, sub: subs[picked.indexOf(f)] ?? undefined })),
      ]));
  };

  const kindOf = (argName: string, f: GraphQLField<unknown, unknown>): string | undefined => {
    const m = /^(.+?)Ids?$/.exec(argName);
    if (m) return m[1]!.charAt(0).toUpperCase() + m[1]!.slice(1);
    return argName === 'id' ? getNamedType(f.type).name : undefined;
  };

  const rootOp = (type: 'query' | 'mutation', f: GraphQLField<unknown, unknown>): fc.Arbitrary<GqlCase> => {
    const args = f.args;
    const model = Object.fromEntries(args.map((a) => [a.name, input(a.type, kindOf(a.name, f))]));
    const required = args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined).map((a) => a.name);
    return fc.record({
      auth: authArb,
      args: fc.oneof({ arbitrary: fc.record(model, { requiredKeys: required }), weight: 12 }, ...(required.length ? [{ arbitrary: fc.constant({} as Record<string, Tagged>), weight: 1 }] : [])),
      sel: selection(f.type, 1),
    }).map(({ auth, args: given, sel }) => {
      const entries = Object.entries(given as Record<string, Tagged>);
      const invalidParts = entries.filter(([, x]) => !x.ok).map(([k, x]) => `${k}=${JSON.stringify(x.v)}`);
      for (const r of required) if (!(r in given)) invalidParts.push(`required argument ${r} is missing`);
      const decl = args.filter((a) => a.name in given || required.includes(a.name)).map((a) => `$${a.name}: ${a.type.toString()}`);
      const doc = `${type} Fuzz${decl.length ? `(${decl.join(', ')})` : ''} { ${f.name}${decl.length ? `(${args.filter((a) => a.name in given || required.includes(a.name)).map((a) => `${a.name}: $${a.name}`).join(', ')})` : ''}${sel ? ` { ${render(sel)} }` : ''} }`;
      const variables = Object.fromEntries(entries.map(([k, x]) => [k, x.v]));
      return { request: gqlRequest(target, auth, doc, variables), validity: invalidParts.length ? 'invalid' : 'valid', invalidParts, root: { type, field: f.name, sel: sel ?? [] } };
    });
  };

  // Documents built to exhaust a parser or validator: nesting, aliases, fragments, long strings (item 7 of issue 14).
  const hostile: fc.Arbitrary<GqlCase> = fc.record({
    auth: fc.constantFrom(...clients).map((client): Auth => ({ kind: 'bearer', client })),
    shape: fc.constantFrom('nested', 'aliases', 'fragments', 'fragment-chain', 'string', 'directives'),
    n: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 50, max: 3_000 }), fc.integer({ min: 3_000, max: 20_000 })),
  }).map(({ auth, shape, n }) => {
    const doc = shape === 'nested' ? `{ ${'client { projects { edges { node { '.repeat(Math.ceil(n / 4))}id${' } } } }'.repeat(Math.ceil(n / 4))} }`
      : shape === 'aliases' ? `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`
      : shape === 'fragments' ? `{ ${Array.from({ length: n }, (_, i) => `...F${i}`).join(' ')} } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { __typename }`).join(' ')}`
      : shape === 'fragment-chain' ? `{ ...F0 } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { __typename ${i + 1 < n ? `...F${i + 1}` : ''} }`).join(' ')}`
      : shape === 'string' ? `{ project(id: "${'x'.repeat(n * 10)}") { id } }`
      : `{ __typename ${'@include(if: true) '.repeat(n)}}`;
    return { request: gqlRequest(target, auth, doc), validity: 'valid' as Validity, invalidParts: [`hostile document: ${shape} × ${n}`] };
  });

  const ops: Array<{ id: string; arbitrary: fc.Arbitrary<GqlCase> }> = [];
  for (const [type, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]] as const) {
    for (const f of Object.values(root?.getFields() ?? {})) ops.push({ id: `GraphQL ${type} ${f.name}`, arbitrary: rootOp(type, f) });
  }
  ops.push({ id: 'GraphQL hostile documents', arbitrary: hostile });

  /** Checks data against the selection and the schema's types; nulls are fine where an error's path explains them. */
  const shapeErrors = (t: GraphQLOutputType, value: unknown, sels: Sel[] | undefined, path: Array<string | number>, errorPaths: string[], out: string[]) => {
    const at = path.join('.') || '(root)';
    if (value === null || value === undefined) {
      if (value === undefined) out.push(`${at} is missing`);
      else if (isNonNullType(t) && !errorPaths.some((p) => p === at || p.startsWith(at + '.'))) out.push(`${at} is null but ${t.toString()} is non-null (and no error says why)`);
      return;
    }
    const inner = isNonNullType(t) ? t.ofType : t;
    if (isListType(inner)) {
      if (!Array.isArray(value)) { out.push(`${at} is not a list`); return; }
      value.forEach((v, i) => shapeErrors(inner.ofType, v, sels, [...path, i], errorPaths, out));
      return;
    }
    if (isScalarType(inner)) {
      const ok = inner.name === 'Int' ? Number.isInteger(value) && (value as number) <= INT_MAX && (value as number) >= INT_MIN
        : inner.name === 'Float' ? typeof value === 'number' : inner.name === 'String' || inner.name === 'ID' ? typeof value === 'string'
        : inner.name === 'Boolean' ? typeof value === 'boolean' : true;
      if (!ok) out.push(`${at} = ${JSON.stringify(value).slice(0, 60)} is not a ${inner.name}`);
      return;
    }
    if (isEnumType(inner)) {
      if (!inner.getValues().some((v) => v.name === value)) out.push(`${at} = ${JSON.stringify(value)} is not a value of ${inner.name}`);
      return;
    }
    if (typeof value !== 'object' || Array.isArray(value)) { out.push(`${at} is not an object`); return; }
    const o = value as Record<string, unknown>;
    let concrete: GraphQLNamedType | undefined = isObjectType(inner) ? inner : undefined;
    if (isAbstractType(inner)) {
      concrete = schema.getType(String(o.__typename)) ?? undefined;
      if (!concrete || !isObjectType(concrete) || !schema.isSubType(inner, concrete)) { out.push(`${at}.__typename ${JSON.stringify(o.__typename)} is not a type of ${inner.name}`); return; }
    }
    if (!concrete || !isObjectType(concrete)) return;
    const selected = (sels ?? []).flatMap((s) => (s.on ? s.on[concrete!.name] ?? [] : [s]));
    const names = new Set(selected.map((s) => s.field.replace(/\(.*$/, '')));
    for (const k of Object.keys(o)) if (!names.has(k)) out.push(`${at}.${k} was not selected`);
    for (const s of selected) {
      const name = s.field.replace(/\(.*$/, '');
      if (name === '__typename') { if (o.__typename !== concrete.name) out.push(`${at}.__typename is ${JSON.stringify(o.__typename)}, not ${concrete.name}`); continue; }
      const def = concrete.getFields()[name];
      if (def) shapeErrors(def.type, o[name], s.sub, [...path, name], errorPaths, out);
    }
  };

  return {
    name: 'graphql',
    operations: ops,
    request: (c) => c.request,
    judge(_opId, c, a) {
      const out: Finding[] = common(a);
      if (a.status === 0) return out;
      const auth = c.request.auth;
      const body = a.json;
      const errors: Array<Record<string, any>> = Array.isArray(body?.errors) ? body.errors : [];
      const hasData = body?.data !== undefined && body?.data !== null;
      if (auth.kind === 'none' || auth.kind === 'wrong') {
        // G15: a missing or invalid bearer token is HTTP 401 with code UNAUTHENTICATED, and nothing else.
        if (a.status !== 401 || hasData) out.push({ oracle: 'auth-not-enforced', message: `${auth.kind === 'none' ? 'no token' : 'a wrong token'}: answered ${a.status}${hasData ? ' with data' : ''}, not 401 without data` });
      } else if (a.status === 401 || a.status === 403) {
        out.push({ oracle: 'valid-token-refused', message: `the token of client ${(auth as { client: number }).client + 1} was refused with ${a.status}` });
      }
      if (a.status >= 500) return out;
      if (!body || typeof body !== 'object' || (!('data' in body) && !('errors' in body))) {
        out.push({ oracle: 'schema', message: `answer ${a.status} is not a GraphQL response (no data, no errors): ${a.text.slice(0, 160)}` });
        return out;
      }
      const badErrors = errors.filter((e) => typeof e?.message !== 'string' || typeof e?.extensions?.code !== 'string');
      if (badErrors.length) out.push({ oracle: 'graphql-error-shape', message: `errors without a message or extensions.code (G15): ${JSON.stringify(badErrors[0]).slice(0, 200)}` });
      const internal = errors.filter((e) => e?.extensions?.code === 'INTERNAL_SERVER_ERROR');
      if (internal.length) out.push({ oracle: 'internal-error', message: `INTERNAL_SERVER_ERROR: ${String(internal[0]!.message).slice(0, 160)}` });
      if (c.validity === 'invalid' && hasData) out.push({ oracle: 'accepted-invalid', message: `answered data to invalid variables: ${c.invalidParts.join('; ')}` });
      if (c.root && hasData && auth.kind === 'bearer') {
        const root = c.root.type === 'query' ? schema.getQueryType() : schema.getMutationType();
        const def = root?.getFields()[c.root.field];
        const problems: string[] = [];
        const errorPaths = errors.map((e) => (Array.isArray(e.path) ? e.path.join('.') : ''));
        if (def) shapeErrors(def.type, body.data[c.root.field], c.root.sel.length ? c.root.sel : undefined, [c.root.field], errorPaths, problems);
        for (const k of Object.keys(body.data)) if (k !== c.root.field) problems.push(`data.${k} was not asked for`);
        if (problems.length) out.push({ oracle: 'schema', message: `data does not match the schema: ${problems.slice(0, 3).join('; ')}` });
        for (const { type, id } of typedIds(body.data)) {
          const owner = own.ownerOtherThan(auth.client, type, id);
          if (owner !== undefined) out.push({ oracle: 'tenant-leak', message: `client ${auth.client + 1} was shown ${type} ${id}, which only client ${owner + 1} owns` });
        }
      }
      return out;
    },
  };
}
