// The JSON Schemas of fixtures/schemas/ as validators: the reference impl validates with them and the suites assert with them.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type * as AjvModule from 'ajv/dist/2020.js';
import type { CodeOptions } from 'ajv';
import { SCHEMAS_DIR } from './paths.js';
import { SCHEMA_FORMATS } from './schema-formats.js';

const require = createRequire(import.meta.url);
/** The generated validators' file beside this module's compiled one (lib/schema-standalone.ts writes it). */
export const STANDALONE_FILE = 'schema-validators.cjs';

function listJson(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listJson(p) : e.name.endsWith('.json') ? [p] : [];
  });
}

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();
let generated: Record<string, ValidateFunction> | null | undefined;

/** Every schema by its `$id` (ids look like `rest/operator.json`). */
export function allSchemas(): Record<string, any> {
  const out: Record<string, any> = {};
  for (const file of listJson(SCHEMAS_DIR)) {
    const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    const id = schema.$id ?? path.relative(SCHEMAS_DIR, file).split(path.sep).join('/');
    out[id] = { ...schema, $id: id };
  }
  return out;
}

/**
 * ajv's 2020-12 class, loaded on first need, not with this module: most processes never need it (the validators generated at build
 * time serve them), and loading it costs about 55 ms of CPU.
 */
export const ajvClass = (): typeof AjvModule.Ajv2020 => (require('ajv/dist/2020.js') as typeof AjvModule).Ajv2020;

/** An ajv with the project's options and formats, no schema added. */
export function newAjv(code?: CodeOptions): Ajv2020 {
  const Ajv = ajvClass();
  // validateSchema off: checking every schema against the 2020-12 meta-schema costs ~50 ms of CPU in every process that loads them
  // (each Playwright worker, each stack); test/lib.test.ts checks them once instead (`schemaProblems`).
  return new Ajv({ allErrors: true, strict: false, validateSchema: false, formats: SCHEMA_FORMATS, ...(code ? { code } : {}) });
}

export function getAjv(): Ajv2020 {
  if (ajv) return ajv;
  ajv = newAjv();
  for (const schema of Object.values(allSchemas())) ajv.addSchema(schema);
  return ajv;
}

/**
 * The validators generated at build time (dist/lib/schema-validators.cjs, lib/schema-standalone.ts), or null where there are none
 * (the sources run through tsx): then ajv compiles each schema on first use, as the generated code does it.
 */
function generatedValidators(): Record<string, ValidateFunction> | null {
  if (generated === undefined) {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), STANDALONE_FILE);
    generated = fs.existsSync(file) ? (require(file) as (formats: typeof SCHEMA_FORMATS) => Record<string, ValidateFunction>)(SCHEMA_FORMATS) : null;
  }
  return generated;
}

/** Every schema of fixtures/schemas/ that is not a valid JSON Schema 2020-12, with what is wrong (empty when all are). */
export function schemaProblems(): string[] {
  const Ajv = ajvClass();
  const meta = new Ajv({ allErrors: true, strict: false });
  return Object.entries(allSchemas()).flatMap(([id, schema]) => (meta.validateSchema(schema) ? [] : [`${id}: ${formatErrors(meta.errors)}`]));
}

/** The schema (or fragment) a validator id names, for readers of its properties: `rest/operator.json#/$defs/item`. */
function schemaAt(id: string): unknown {
  const [file, pointer = ''] = id.split('#');
  return pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).reduce<any>((s, k) => s?.[k], allSchemas()[file!]);
}

/**
 * The validator of a schema id, e.g. `rest/operator.json` or `rest/operator.json#/$defs/item`: generated at build time when it is
 * one of those (every schema and its `$defs`), else compiled by ajv. Either carries `schema` (read when asked for).
 */
export function validator(id: string): ValidateFunction {
  let v = compiled.get(id);
  if (!v) {
    const made = generatedValidators()?.[id];
    // Read once, when first asked for (the checker reads a schema's listed properties for every answer it judges).
    let schema: unknown;
    if (made) Object.defineProperty(made, 'schema', { get: () => (schema ??= schemaAt(id)), configurable: true });
    v = made ?? getAjv().getSchema(id);
    if (!v) throw new Error(`unknown schema "${id}" (looked in ${SCHEMAS_DIR})`);
    compiled.set(id, v);
  }
  return v;
}

export function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${(e.params as any).additionalProperty})` : ''}`).join('; ');
}

/** Validates data; returns null when valid, else a readable list of what is wrong. */
export function check(id: string, data: unknown): string | null {
  const v = validator(id);
  return v(data) ? null : formatErrors(v.errors);
}

/**
 * Validates as a tolerant reader (G25): fields beyond those listed are not errors but returned apart (`extras`, for a NOTE);
 * a listed field missing or of the wrong type is still an error. Only where the spec says "no additional properties"
 * (Scenario items) must callers use `check` instead.
 */
export function checkTolerant(id: string, data: unknown): { errors: string | null; extras: string[] } {
  const v = validator(id);
  if (v(data)) return { errors: null, extras: [] };
  const all = v.errors ?? [];
  const extra = all.filter((e) => e.keyword === 'additionalProperties');
  const kept = all.filter((e) => e.keyword !== 'additionalProperties');
  return {
    errors: kept.length ? formatErrors(kept) : null,
    extras: extra.map((e) => `${e.instancePath}/${String((e.params as { additionalProperty?: unknown }).additionalProperty)}`),
  };
}
