// The string formats the schemas of fixtures/schemas/ use: ajv-formats' full set and the spec's own, one object for the compiled and the generated validators.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format } from 'ajv';
import { isoDateTimeKind } from './iso8601.js';

/**
 * Every format by name. Handed to ajv as its `formats` option (lib/schemas.ts) and, at run time, to the validators generated from
 * the schemas at build time (lib/schema-standalone.ts), whose code names each format as `formats["name"]` of this object.
 */
export const SCHEMA_FORMATS: Readonly<Record<string, Format>> = {
  ...fullFormats,
  // Spec dates: `YYYY-MM-DD HH:MM:SS` (REST) and `<timestamp>[<zone_id>]` (connector message calls).
  'rest-date': /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
  // Connector answers (G24): any ISO 8601 date-time, offset and fraction optional, a Java zone suffix tolerated.
  'iso-date-time': { type: 'string', validate: (v: string) => isoDateTimeKind(v) !== null },
  'zoned-date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\[[A-Za-z0-9_/+-]+\]$/,
};
