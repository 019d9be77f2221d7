// The validators generated at build time (lib/schema-standalone.ts) judge as ajv's compiled ones: same verdict, same errors, for every schema and $defs, on examples, their mutations and random values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { CODE } from '../lib/paths.js';
import { allSchemas, getAjv, validator, STANDALONE_FILE } from '../lib/schemas.js';
import { standaloneIds } from '../lib/schema-standalone.js';
import { SCHEMA_FORMATS } from '../lib/schema-formats.js';
import type { ValidateFunction } from 'ajv';

const file = path.join(CODE, 'lib', STANDALONE_FILE);
const generated = () => (createRequire(import.meta.url)(file) as (f: typeof SCHEMA_FORMATS) => Record<string, ValidateFunction>)(SCHEMA_FORMATS);

/** Values a schema's validators meet: its examples, each example with a field dropped, a field added and each field's type changed. */
function samples(schema: any): unknown[] {
  const examples: unknown[] = [...(schema.examples ?? []), ...Object.values(schema.$defs ?? {}).flatMap((d: any) => d.examples ?? [])];
  const out: unknown[] = [...examples, {}, [], null, 'x', 0];
  for (const e of examples) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) continue;
    out.push({ ...e, unlisted_field: 1 });
    for (const k of Object.keys(e)) {
      const { [k]: _dropped, ...rest } = e as Record<string, unknown>;
      out.push(rest, { ...e, [k]: typeof (e as any)[k] === 'string' ? 42 : 'text' }, { ...e, [k]: null });
    }
  }
  return out;
}

test('the generated file exists (scripts/build.mjs) and exports every schema and each of its $defs', () => {
  assert.ok(fs.existsSync(file), `${file}: written by scripts/build.mjs`);
  assert.deepEqual(Object.keys(generated()).sort(), standaloneIds());
  assert.ok(standaloneIds().length > Object.keys(allSchemas()).length, 'fragments ($defs) too');
});

test('validator() hands out the generated functions, with the schema they judge against', () => {
  const made = generated();
  for (const id of ['harness/target.json', 'connector/payload.json#/$defs/card']) {
    const v = validator(id);
    assert.equal(v.toString(), made[id]!.toString(), `${id}: the generated function`);
    assert.ok(v.schema && typeof v.schema === 'object', `${id}: schema`);
  }
  assert.deepEqual(Object.keys((validator('connector/payload.json#/$defs/card').schema as any).properties).sort(), Object.keys(allSchemas()['connector/payload.json'].$defs.card.properties).sort());
});

test('every generated validator gives the verdict and the errors of ajv compiling its schema, on examples, their mutations and random JSON', () => {
  const made = generated();
  const ajv = getAjv();
  const schemas = allSchemas();
  let compared = 0;
  const randoms = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 40, seed: 20261128 });
  for (const id of standaloneIds()) {
    const compiledFn = ajv.getSchema(id)!;
    const mine = made[id]!;
    for (const value of [...samples(schemas[id.split('#')[0]!]), ...randoms]) {
      const expected = compiledFn(value);
      const errors = compiledFn.errors;
      assert.equal(mine(value), expected, `${id}: verdict on ${JSON.stringify(value)?.slice(0, 200)}`);
      assert.deepEqual(mine.errors ?? null, errors ?? null, `${id}: errors on ${JSON.stringify(value)?.slice(0, 200)}`);
      compared++;
    }
  }
  assert.ok(compared > 5_000, `${compared} values compared`);
});
