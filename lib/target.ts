// The target description (DESIGN.md "Targets"): where a service under test lives and what it can do. A ready file is a valid target.
import fs from 'node:fs';

export type Capability = 'sim' | 'platform' | 'clock';
export const CAPABILITIES: Capability[] = ['sim', 'platform', 'clock'];

export interface Target {
  base_url: string;
  rest_base_url: string;
  rest_ha_base_url?: string;
  graphql_url: string;
  api_key: string;
  api_keys: Array<{ client_id: number; key: string }>;
  user: { username: string; password: string };
  /** Logins of other clients, for isolation checks. */
  users?: Array<{ client_id: number; username: string; password: string }>;
  ca_file?: string;
  capabilities: Capability[];
  sim_url?: string;
  /** Bearer token of the simulation API (`Authorization: Bearer <sim_token>`), also accepted by the fakes' control APIs. */
  sim_token?: string;
  platform_url?: string;
  connector_url?: string;
  sink_url?: string;
  chat_url?: string;
  inspector_url?: string;
  /** True for the embedded reference implementation: REF clauses are only failed there. */
  reference?: boolean;
  /** Names of the deviations switched on at start, if any (reported, never used by checks). */
  deviations?: string[];
}

export class TargetError extends Error {}

/** Reads and validates a target file; errors say which field is wrong and what is accepted. */
export function loadTarget(file: string): Target {
  let raw: unknown;
  try { raw = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
    throw new TargetError(`cannot read target file ${file}: ${(e as Error).message}`);
  }
  const t = raw as Partial<Target>;
  const need = ['base_url', 'rest_base_url', 'graphql_url', 'api_key'] as const;
  for (const k of need) if (typeof t[k] !== 'string' || !t[k]) throw new TargetError(`target file ${file}: "${k}" is required (a string URL or key)`);
  for (const k of ['base_url', 'rest_base_url', 'rest_ha_base_url', 'graphql_url', 'sim_url', 'platform_url', 'connector_url', 'sink_url'] as const) {
    const v = t[k];
    if (v !== undefined && !/^https?:\/\//.test(v)) throw new TargetError(`target file ${file}: "${k}" must be an http(s) URL, got ${JSON.stringify(v)}`);
  }
  if (!t.api_keys || !Array.isArray(t.api_keys)) t.api_keys = [{ client_id: 0, key: t.api_key! }];
  if (!t.user || typeof t.user.username !== 'string' || typeof t.user.password !== 'string') throw new TargetError(`target file ${file}: "user" must be {"username": ..., "password": ...}`);
  const caps = t.capabilities ?? [];
  const bad = caps.filter((c) => !CAPABILITIES.includes(c));
  if (bad.length) throw new TargetError(`target file ${file}: unknown capabilities ${bad.join(', ')}; accepted: ${CAPABILITIES.join(', ')}`);
  if (t.ca_file && !fs.existsSync(t.ca_file)) throw new TargetError(`target file ${file}: ca_file ${t.ca_file} does not exist`);
  return { ...t, capabilities: caps } as Target;
}
