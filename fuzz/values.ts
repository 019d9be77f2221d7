// Generated values from JSON Schema (the 2020-12 dialect of OpenAPI 3.1): valid ones, boundary ones and invalid ones for fast-check.
import fc from 'fast-check';

/** Whether a value satisfies its schema; decided by validation (ajv), never by the generator that made it. */
export type Validity = 'valid' | 'invalid';
export type Schema = Record<string, any>;
/** Follows a `$ref` of the document the schema comes from. */
export type Resolve = (ref: string) => Schema;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Strings that broke servers before: SQL, path and template syntax, control and wide characters, wildcards. */
const HOSTILE_CONSTANTS: readonly string[] = [
  '', ' ', '*', '**', '*a*', 'a*b*c', "' OR 1=1 --", '"; DROP TABLE clients; --', '%', '%25', '%00', '\u0000', '../../etc/passwd', '..%2F..%2F',
  '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '\\', '\'"', 'null', 'undefined', 'NaN', '[]', '{}', '\u202e\u200b', 'é'.normalize('NFD'),
];
/** Long runs of one unit: the count shrinks, so a failure that needs length is reported at the shortest length that fails. */
const RUNS = fc.record({ unit: fc.constantFrom('*', 'a*', '*a', 'x', '😀', '%', '\\'), n: fc.integer({ min: 1, max: 6_000 }), tail: fc.constantFrom('', 'x', 'b') })
  .map(({ unit, n, tail }) => unit.repeat(n) + tail);
export const hostileString: fc.Arbitrary<string> = fc.oneof({ arbitrary: fc.constantFrom(...HOSTILE_CONSTANTS), weight: 2 }, { arbitrary: RUNS, weight: 1 });

/** Number spellings a parser may mishandle: exponents, fractions, signs, other digits, values past 2^53. */
export const HOSTILE_NUMBERS: readonly string[] = [
  '0', '-1', '1.5', '1e3', '1E+2', '1e400', '-0', '+1', '01', '0x1f', ' 1', '1 ', '1,2', '١٢', 'Infinity', '-Infinity', 'NaN', '1_000',
  String(MAX_SAFE), String(MAX_SAFE + 2), '9'.repeat(40), '-' + '9'.repeat(40), '2147483648', '-2147483649', '',
];

const wildcards = fc.tuple(fc.stringMatching(/^[a-z]{0,3}$/), fc.integer({ min: 1, max: 400 }), fc.stringMatching(/^[a-z]{0,3}$/))
  .map(([a, n, b]) => `${a}${'*'.repeat(n)}${b}`);

export class SchemaValues {
  constructor(private resolve: Resolve) {}

  /** The schema itself with its `$ref` followed (several hops). */
  deref(s: Schema | undefined): Schema {
    let out = s ?? {};
    for (let i = 0; i < 20 && typeof out.$ref === 'string'; i++) out = { ...this.resolve(out.$ref), ...Object.fromEntries(Object.entries(out).filter(([k]) => k !== '$ref')) };
    return out;
  }

  /** JSON types a schema admits (from `type`, else from `enum`/`const`, else every type). */
  types(s0: Schema): string[] {
    const s = this.deref(s0);
    if (s.type) return Array.isArray(s.type) ? s.type : [s.type];
    const values = s.enum ?? ('const' in s ? [s.const] : undefined);
    if (values) return [...new Set(values.map((v: unknown) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)))] as string[];
    const branches = s.anyOf ?? s.oneOf;
    if (branches) return [...new Set(branches.flatMap((b: Schema) => this.types(b)))] as string[];
    // allOf: the types every branch admits.
    if (s.allOf?.length) return (s.allOf as Schema[]).map((b) => this.types(b)).reduce((a, b) => a.filter((t) => b.includes(t)));
    if (s.properties || s.required) return ['object'];
    return ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];
  }

  /** A JSON value meant to satisfy the schema (validity is still checked by the caller). */
  valid(s0: Schema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.deref(s0);
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    const branches = s.anyOf ?? s.oneOf;
    if (branches?.length) return fc.oneof(...branches.map((b: Schema) => this.valid(b, depth)));
    if (s.allOf?.length) {
      const parts = s.allOf.map((b: Schema) => this.deref(b));
      return this.valid({ ...Object.assign({}, ...parts), allOf: undefined, required: [...new Set(parts.flatMap((b: Schema) => b.required ?? []))] }, depth);
    }
    const types = this.types(s).filter((t) => depth < 3 || !['object', 'array'].includes(t));
    return fc.oneof(...(types.length ? types : ['string']).map((t) => this.ofType(t, s, depth)));
  }

  private ofType(t: string, s: Schema, depth: number): fc.Arbitrary<unknown> {
    switch (t) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -MAX_SAFE);
        const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : MAX_SAFE);
        const near = (a: number, b: number) => fc.integer({ min: Math.max(min, a), max: Math.min(max, b) });
        return fc.oneof({ arbitrary: near(min, min + 120), weight: 4 }, { arbitrary: fc.integer({ min, max }), weight: 1 }, fc.constantFrom(min, max));
      }
      case 'number': return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
      case 'string': return this.string(s);
      case 'array': {
        const item = s.items ? this.valid(s.items, depth + 1) : fc.string();
        const opts = { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) };
        return s.uniqueItems ? fc.uniqueArray(item, { ...opts, selector: (v) => JSON.stringify(v) }) : fc.array(item, opts);
      }
      case 'object': {
        const props: Record<string, Schema> = s.properties ?? {};
        const model = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, this.valid(p, depth + 1)]));
        const required: string[] = (s.required ?? []).filter((k: string) => k in props);
        // `dependentSchemas: {a: {not: {required: [b]}}}` (a excludes b): b is dropped when a is there.
        const excludes = Object.entries<Schema>(s.dependentSchemas ?? {}).map(([a, d]) => [a, (d.not?.required ?? []) as string[]] as const).filter(([, bs]) => bs.length);
        const dropExcluded = (o: Record<string, unknown>) => { const c = { ...o }; for (const [a, bs] of excludes) if (a in c) for (const b of bs) if (!required.includes(b)) delete c[b]; return c; };
        return fc.record(model, { requiredKeys: required }).map(dropExcluded).filter((o) => Object.keys(o).length >= (s.minProperties ?? 0));
      }
      default: return fc.string();
    }
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const fit = (a: fc.Arbitrary<string>) => a.filter((x) => x.length >= (s.minLength ?? 0) && x.length <= (s.maxLength ?? Infinity));
    switch (s.format) {
      case 'email': return fc.emailAddress();
      case 'uuid': return fc.uuid();
      case 'date-time': return fc.date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      case 'date': return fc.date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      case 'rest-date': return fc.date({ min: new Date('2015-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19).replace('T', ' '));
      case 'uri': return fc.webUrl();
    }
    if (s.pattern) { try { return fit(fc.stringMatching(new RegExp(s.pattern, 'u'))); } catch { /* a pattern of another dialect: plain strings */ } }
    const max = s.maxLength;
    return fit(fc.oneof(
      { arbitrary: fc.string({ maxLength: 20 }), weight: 4 },
      { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
      { arbitrary: hostileString, weight: 2 },
      { arbitrary: wildcards, weight: 1 },
      ...(max !== undefined ? [fc.constant('x'.repeat(max))] : []),
    ));
  }

  /** A value that should not satisfy the schema: wrong type, out of range, outside the enum, missing required property. */
  invalid(s0: Schema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.deref(s0);
    const types = this.types(s);
    const wrongType = fc.constantFrom<unknown>(...[
      ...(types.includes('string') ? [] : ['x', '1', '']),
      ...(types.includes('integer') || types.includes('number') ? [] : [7, -1]),
      ...(types.includes('number') ? [] : [1.5]),
      ...(types.includes('boolean') ? [] : [true]),
      ...(types.includes('null') ? [] : [null]),
      ...(types.includes('array') ? [] : [[]]),
      ...(types.includes('object') ? [] : [{}]),
    ]);
    const out: fc.Arbitrary<unknown>[] = types.length < 7 ? [wrongType] : [];
    if (Array.isArray(s.enum)) out.push(fc.constantFrom('__not_listed__', 999_999, ...s.enum.filter((v: unknown) => typeof v === 'string').map((v: string) => v.toUpperCase() + '_')));
    if (types.includes('integer')) {
      const outside = [...(s.minimum !== undefined ? [s.minimum - 1] : []), ...(s.maximum !== undefined ? [s.maximum + 1] : [])];
      if (outside.length) out.push(fc.constantFrom(...outside));
      if (s.maximum === undefined || s.maximum < MAX_SAFE) out.push(fc.constantFrom(1.5, 1e-7));
    }
    if (types.includes('string') && (s.minLength ?? 0) > 0) out.push(fc.constant(''));
    if (types.includes('string') && s.maxLength !== undefined) out.push(fc.constant('x'.repeat(s.maxLength + 1)));
    if (types.includes('object') && depth < 3) {
      const merged: Schema = s.allOf ? Object.assign({}, ...s.allOf.map((b: Schema) => this.deref(b))) : s;
      const props: Record<string, Schema> = merged.properties ?? {};
      const required: string[] = [...new Set((s.allOf ?? [s]).flatMap((b: Schema) => this.deref(b).required ?? []))] as string[];
      const full = this.valid(s, depth) as fc.Arbitrary<Record<string, unknown>>;
      if (required.length) out.push(fc.tuple(full, fc.constantFrom(...required)).map(([o, k]) => { const c = { ...o }; delete c[k]; return c; }));
      const keys = Object.keys(props);
      if (keys.length) out.push(fc.tuple(full, fc.constantFrom(...keys)).chain(([o, k]) => this.invalid(props[k]!, depth + 1).map((v) => ({ ...o, [k]: v }))));
      if (merged.additionalProperties === false) out.push(full.map((o) => ({ ...o, __unexpected__: 1 })));
    }
    if (types.includes('array') && s.items && depth < 3) out.push(this.invalid(s.items, depth + 1).map((v) => [v]));
    return out.length ? fc.oneof(...out) : fc.constant(null);
  }

  /** A query or path parameter value meant to satisfy its schema, as the string sent. */
  validParam(s0: Schema): fc.Arbitrary<string> {
    return this.valid(this.deref(s0)).map((v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)));
  }

  /** A query or path parameter value (a string), valid, boundary or hostile; validity is decided afterwards. */
  param(s0: Schema): fc.Arbitrary<string> {
    const s = this.deref(s0);
    const types = this.types(s);
    const numeric = types.includes('integer') || types.includes('number');
    const boundaries = numeric ? [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum].filter((x) => typeof x === 'number').flatMap((x: number) => [x - 1, x, x + 1]).map(String) : [];
    const valid = this.validParam(s);
    return fc.oneof(
      { arbitrary: valid, weight: 5 },
      { arbitrary: numeric ? fc.constantFrom(...HOSTILE_NUMBERS, ...boundaries) : hostileString, weight: 2 },
      { arbitrary: this.invalid(s).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), weight: 1 },
      { arbitrary: numeric ? fc.constantFrom(...HOSTILE_CONSTANTS.slice(0, 12)) : wildcards, weight: 1 },
    );
  }

  /**
   * The JSON values a query-string spelling stands for under the schema's types (`"12"` is the integer 12 when integers are
   * admitted, and a string when strings are). An integer is digits only: `1e3`, `1.0` and `+1` are not integers.
   */
  readings(text: string, s0: Schema): unknown[] {
    const out: unknown[] = [];
    for (const t of this.types(s0)) {
      if (t === 'string') out.push(text);
      // Leading zeros are still decimal digits (`007` is 7); signs other than a leading minus, exponents and fractions are not.
      else if (t === 'integer' && /^-?\d+$/.test(text)) out.push(Number(text));
      else if (t === 'number' && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) && Number.isFinite(Number(text))) out.push(Number(text));
      else if (t === 'boolean' && (text === 'true' || text === 'false')) out.push(text === 'true');
    }
    return out;
  }
}
