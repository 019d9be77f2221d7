// The JSON Schemas of fixtures/schemas/, compiled once with ajv: the reference impl validates with them and the suites assert with them.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SCHEMAS_DIR } from './paths.js';
import { isoDateTimeKind } from './iso8601.js';

// ajv-formats is CommonJS: under ESM its function may sit on `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

function listJson(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listJson(p) : e.name.endsWith('.json') ? [p] : [];
  });
}

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

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

export function getAjv(): Ajv2020 {
  if (ajv) return ajv;
  // validateSchema off: checking every schema against the 2020-12 meta-schema costs ~50 ms of CPU in every process that loads them
  // (each Playwright worker, each stack); test/lib.test.ts checks them once instead (`schemaProblems`).
  ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  // Spec dates: `YYYY-MM-DD HH:MM:SS` (REST) and `<timestamp>[<zone_id>]` (connector message calls).
  ajv.addFormat('rest-date', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  // Connector answers (G24): any ISO 8601 date-time, offset and fraction optional, a Java zone suffix tolerated.
  ajv.addFormat('iso-date-time', { type: 'string', validate: (v: string) => isoDateTimeKind(v) !== null });
  ajv.addFormat('zoned-date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\[[A-Za-z0-9_/+-]+\]$/);
  for (const schema of Object.values(allSchemas())) ajv.addSchema(schema);
  return ajv;
}

/** Every schema of fixtures/schemas/ that is not a valid JSON Schema 2020-12, with what is wrong (empty when all are). */
export function schemaProblems(): string[] {
  const meta = new Ajv2020({ allErrors: true, strict: false });
  return Object.entries(allSchemas()).flatMap(([id, schema]) => (meta.validateSchema(schema) ? [] : [`${id}: ${formatErrors(meta.errors)}`]));
}

/** The compiled validator of a schema id, e.g. `rest/operator.json` or `rest/operator.json#/$defs/item`. */
export function validator(id: string): ValidateFunction {
  let v = compiled.get(id);
  if (!v) {
    v = getAjv().getSchema(id);
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
