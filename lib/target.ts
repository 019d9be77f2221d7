// The target description (DESIGN.md "Targets"): where a service under test lives, what it exposes, and the parts checks need.
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { allSchemas, validator } from './schemas.js';

export type Capability = 'sim' | 'platform' | 'clock';
export const CAPABILITIES: Capability[] = ['sim', 'platform', 'clock'];

export interface Target {
  base_url: string;
  rest_base_url: string;
  rest_ha_base_url?: string;
  graphql_url: string;
  api_key: string;
  api_keys: Array<{ client_id: number; key: string }>;
  user: { username: string; password: string; client_id?: number };
  /** Logins of each client, for isolation checks. */
  users?: Array<{ client_id: number; username: string; password: string }>;
  ca_file?: string;
  capabilities: Capability[];
  sim_url?: string;
  /** Bearer token of the simulation API and of the fakes' control APIs (a secret). */
  sim_token?: string;
  platform_url?: string;
  connector_url?: string;
  connector_control_url?: string;
  sink_url?: string;
  /** Control API of a wire proxy (`ces wire`, or `ces serve --wire`) between the service and its partners: `ces selftest --wire` switches its faults. */
  wire_url?: string;
  chat_url?: string;
  inspector_url?: string;
  /** True for the embedded reference implementation: REF clauses are only failed there. */
  reference?: boolean;
  /** Names of the deviations switched on at start, if any (reported, never used by checks). */
  deviations?: string[];
  /** Private JSON file {connector_secret, sink_secret} of the embedded fakes. */
  secrets_file?: string;
}

/** The JSON Schema of target files (fixtures/schemas/harness/target.json). */
export const TARGET_SCHEMA_ID = 'harness/target.json';

export class TargetError extends Error {}

/** Reads and validates a target file; the one error names the field and the accepted form. */
export function loadTarget(file: string): Target {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) {
    throw new TargetError(`cannot read target file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let raw: unknown;
  try { raw = JSON.parse(text); } catch (e) {
    throw new TargetError(`cannot read target file ${file}: not valid JSON (${(e as Error).message})`);
  }
  return validateTarget(raw, file);
}

/** Validates a parsed target against the schema, fills defaults, and resolves ca_file against the file's folder. */
export function validateTarget(raw: unknown, file = 'target'): Target {
  const v = validator(TARGET_SCHEMA_ID);
  if (!v(raw)) throw new TargetError(`target file ${file}: ${describeError(pickError(v.errors ?? []), raw)}`);
  const t = { ...(raw as Target) };
  delete (t as { $schema?: string }).$schema;
  if (!t.api_keys?.length) t.api_keys = [{ client_id: 0, key: t.api_key }];
  t.capabilities = t.capabilities ?? [];
  if (t.ca_file) {
    const ca = path.resolve(path.dirname(file), t.ca_file);
    if (!fs.existsSync(ca)) throw new TargetError(`target file ${file}: "ca_file" ${t.ca_file} does not exist (accepted: path of a PEM file of the CA that signed the target's certificates)`);
    t.ca_file = ca;
  }
  for (const c of ['clock'] as const) {
    if (t.capabilities.includes(c) && !t.capabilities.includes('sim')) throw new TargetError(`target file ${file}: "capabilities" lists "clock" without "sim" (the clock moves through POST {sim_url}/clock/advance)`);
  }
  for (const [cap, field] of [['sim', 'sim_url'], ['platform', 'platform_url']] as const) {
    if (t.capabilities.includes(cap) && !t[field]) throw new TargetError(`target file ${file}: "capabilities" lists "${cap}" but "${field}" is missing (accepted: ${propertyDescription([field])})`);
  }
  return t;
}

/** The error a user should see first: a missing or unknown field before the details of a nested one. */
function pickError(errors: ErrorObject[]): ErrorObject {
  const rank = (e: ErrorObject) => (e.keyword === 'required' ? 0 : e.keyword === 'additionalProperties' ? 1 : e.keyword === 'type' ? 2 : 3);
  // `$ref` with a sibling description yields one error per failing keyword; the shallowest path is the clearest.
  return [...errors].sort((a, b) => rank(a) - rank(b) || a.instancePath.split('/').length - b.instancePath.split('/').length)[0]!;
}

function describeError(e: ErrorObject, raw: unknown): string {
  const at = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const field = (segs: string[]) => segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i ? `.${s}` : s)).join('');
  if (e.keyword === 'required') {
    const name = (e.params as { missingProperty: string }).missingProperty;
    const full = [...at, name];
    return `"${field(full)}" is missing (accepted: ${propertyDescription(full)})`;
  }
  if (e.keyword === 'additionalProperties') {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    const known = Object.keys(propertySchema(at)?.properties ?? {}).filter((k) => k !== '$schema');
    return `unknown field "${field([...at, name])}" (accepted fields${at.length ? ` of "${field(at)}"` : ''}: ${known.join(', ')})`;
  }
  if (!at.length) return `the file must hold a JSON object (got ${JSON.stringify(raw)?.slice(0, 40)})`;
  const value = at.reduce<any>((o, k) => o?.[k], raw);
  const shown = JSON.stringify(value)?.slice(0, 80) ?? String(value);
  return `"${field(at)}" is ${shown} (accepted: ${propertyDescription(at)})`;
}

/** The schema of the property at a path (array indexes step into `items`), `$ref`s to `$defs` followed. */
function propertySchema(segs: string[]): any {
  const root = allSchemas()[TARGET_SCHEMA_ID];
  let s: any = root;
  for (const seg of segs) {
    if (!s) return undefined;
    s = /^\d+$/.test(seg) ? s.items : s.properties?.[seg];
  }
  return s;
}

function propertyDescription(segs: string[]): string {
  const s = propertySchema(segs);
  if (!s) return 'see fixtures/schemas/harness/target.json';
  if (s.description) return s.description;
  const ref = typeof s.$ref === 'string' ? allSchemas()[TARGET_SCHEMA_ID].$defs?.[s.$ref.split('/').pop()] : undefined;
  return ref?.description ?? 'see fixtures/schemas/harness/target.json';
}

/** Every secret a target holds (keys, passwords, the sim token), for masking. */
export function targetSecrets(t: Partial<Target>): string[] {
  return [t.api_key, ...(t.api_keys ?? []).map((k) => k.key), t.user?.password, ...(t.users ?? []).map((u) => u.password), t.sim_token].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

// ---- Parts of a target that checks may need ---------------------------------------------------------------------------

/**
 * What a check may need beyond the REST and GraphQL APIs, one key and one user. A check declares its parts (suites:
 * `needs(...)`) and is SKIP "target lacks <part>" when the target does not have them: never a failure, never a pass.
 */
export type TargetPart = Capability | 'connector_url' | 'sink_url' | 'second_client_key' | 'second_client_user' | 'console';

export const PARTS: Record<TargetPart, { lacks: string; expose: string }> = {
  sim: { lacks: 'capability sim', expose: 'the simulation API of DESIGN.md as a test-only adapter at sim_url (visitor side: start conversations, send visitor and operator messages, read transcripts; bearer sim_token), and "sim" in capabilities' },
  clock: { lacks: 'capability clock', expose: 'POST {sim_url}/clock/advance moving the service clock (timers due fire), and "clock" in capabilities' },
  platform: { lacks: 'capability platform', expose: 'the platform API of gap G17 at platform_url (connector apps, installations, routing rules, webhook subscriptions), and "platform" in capabilities' },
  connector_url: { lacks: 'connector_url', expose: 'a fake connector the service can reach (`ces serve` runs one; its control API answers the harness), the service\'s bots pointed at it, and its URL as connector_url' },
  sink_url: { lacks: 'sink_url', expose: 'a webhook sink the service can reach (`ces sink`), subscribed through the platform API, and its URL as sink_url' },
  second_client_key: { lacks: 'a second client in api_keys', expose: 'the API key of a second client in api_keys ([{client_id, key}, {client_id, key}])' },
  second_client_user: { lacks: 'a user of a second client in users', expose: 'a login of a second client in users ([{client_id, username, password}, ...])' },
  console: { lacks: 'chat_url and inspector_url', expose: 'the console pages of the reference implementation (chat_url, inspector_url): only the embedded reference implementation has them' },
};
export const PART_NAMES = Object.keys(PARTS) as TargetPart[];

/** The parts a target has. */
export function partsOf(t: Target): Set<TargetPart> {
  const out = new Set<TargetPart>(t.capabilities);
  if (t.connector_url) out.add('connector_url');
  if (t.sink_url) out.add('sink_url');
  if (new Set(t.api_keys.map((k) => k.client_id)).size >= 2 && new Set(t.api_keys.map((k) => k.key)).size >= 2) out.add('second_client_key');
  if (new Set((t.users ?? []).map((u) => u.client_id)).size >= 2) out.add('second_client_user');
  if (t.chat_url && t.inspector_url) out.add('console');
  return out;
}

/** The parts of `wanted` the target lacks. */
export function lackedParts(t: Target, wanted: Iterable<string>): TargetPart[] {
  const have = partsOf(t);
  return [...new Set(wanted)].filter((p): p is TargetPart => !have.has(p as TargetPart));
}

/** The skip reason of a check whose parts are missing: "target lacks capability sim, connector_url". */
export const lacksReason = (parts: TargetPart[]) => `target lacks ${parts.map((p) => PARTS[p].lacks).join(', ')}`;

/** The parts named by a skip reason written by lacksReason (coverage groups skipped clauses by them). */
export function partsOfReason(reason: string | undefined): TargetPart[] {
  if (!reason?.startsWith('target lacks ')) return [];
  const rest = reason.slice('target lacks '.length);
  return PART_NAMES.filter((p) => rest.includes(PARTS[p].lacks) || new RegExp(`(^|[ ,])${p}([ ,(]|$)`).test(rest));
}
