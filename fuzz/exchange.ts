// One generated request and its answer: sending it with the target's credentials, and printing it as a copy-paste curl reproduction.
import { http, agentFor } from '../lib/http.js';

/** How a request authenticates; secrets stay out of the request itself and are added when sending (and as shell variables in reproductions). */
export type Auth =
  | { kind: 'key'; client: number; scheme: 'header' | 'query' | 'basic' }
  | { kind: 'bearer'; client: number }
  | { kind: 'none' }
  | { kind: 'wrong'; scheme: 'header' | 'query' | 'basic' | 'bearer'; value: string };

export interface FuzzRequest {
  method: string;
  /** Shell variable naming the base URL in reproductions (`CES_REST_BASE_URL`), and its value. */
  baseVar: string;
  baseUrl: string;
  /** Path below the base, already percent-encoded. */
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: string;
  auth: Auth;
}

export interface Answer { status: number; headers: Record<string, string>; text: string; json: any; ms: number; error?: string }

/** API keys and bearer tokens of the target's clients (index 0 is the main client); never printed. */
export interface Credentials { keys: string[]; tokens: string[] }

/** Shell variables standing for the credentials in reproductions. */
export const keyVar = (client: number) => (client === 0 ? 'CES_API_KEY' : `CES_API_KEY_${client + 1}`);
export const tokenVar = (client: number) => (client === 0 ? 'CES_TOKEN' : `CES_TOKEN_${client + 1}`);

const queryString = (q: Array<[string, string]>) => q.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** The request as sent: credentials in the header, query or Basic user the auth names. */
function materialise(r: FuzzRequest, creds: Credentials): { url: string; headers: Record<string, string> } {
  const query = [...r.query];
  const headers = { ...r.headers };
  const a = r.auth;
  const secret = a.kind === 'key' ? creds.keys[a.client]! : a.kind === 'bearer' ? creds.tokens[a.client]! : a.kind === 'wrong' ? a.value : '';
  const scheme = a.kind === 'key' || a.kind === 'wrong' ? a.scheme : a.kind === 'bearer' ? 'bearer' : undefined;
  if (scheme === 'header') headers['x-api-key'] = secret;
  else if (scheme === 'query') query.push(['key', secret]);
  else if (scheme === 'basic') headers.authorization = `Basic ${Buffer.from(`${secret}:x`).toString('base64')}`;
  else if (scheme === 'bearer') headers.authorization = `Bearer ${secret}`;
  const qs = queryString(query);
  return { url: `${r.baseUrl}${r.path}${qs ? `?${qs}` : ''}`, headers };
}

export async function send(r: FuzzRequest, creds: Credentials, caFile: string | undefined, timeoutMs: number): Promise<Answer> {
  const { url, headers } = materialise(r, creds);
  const started = performance.now();
  try {
    const a = await http({ method: r.method, url, headers, body: r.body, timeoutMs }, agentFor(caFile));
    return { status: a.status, headers: a.headers, text: a.text, json: a.json, ms: a.ms };
  } catch (e) {
    return { status: 0, headers: {}, text: '', json: undefined, ms: performance.now() - started, error: (e as Error).message };
  }
}

/** In double quotes, the shell expands only $, `, \ and " : escape them, except the $VARS we mean. */
const dq = (s: string) => s.replace(/[\\"`$]/g, (c) => `\\${c}`);
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Long runs of one short unit, written as `$(printf ...)` so a reproduction stays readable (the shell rebuilds the exact text). */
function compressRuns(s: string): string {
  return s.replace(/(.{1,12}?)\1{29,}/gs, (run, unit: string) => {
    if (/['\\\n]/.test(unit)) return run;
    return `$(printf '${unit.replace(/%/g, '%%')}%.0s' $(seq ${run.length / unit.length}))`;
  });
}

/** Bodies longer than this go to a file beside the report (`--data-binary @file`). */
export const INLINE_BODY_MAX = 2_000;

/**
 * A copy-paste curl command reproducing the request; credentials appear as $CES_API_KEY / $CES_TOKEN variables, never in clear.
 * `bodyFile` names the file holding a long body.
 */
export function curl(r: FuzzRequest, caFile?: string, bodyFile?: string): string {
  const a = r.auth;
  const query = r.query.map(([k, v]) => dq(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`));
  const parts = ['curl', '-sS', '-i'];
  if (caFile) parts.push('--cacert', '"$CES_CA_FILE"');
  if (r.method !== 'GET' || r.body !== undefined) parts.push('-X', r.method);
  const secretRef = a.kind === 'key' ? `$${keyVar(a.client)}` : a.kind === 'bearer' ? `$${tokenVar(a.client)}` : a.kind === 'wrong' ? dq(a.value) : '';
  const scheme = a.kind === 'key' || a.kind === 'wrong' ? a.scheme : a.kind === 'bearer' ? 'bearer' : undefined;
  if (scheme === 'query') query.push(`key=${secretRef}`);
  const qs = query.join('&');
  parts.push(`"$${r.baseVar}${compressRuns(dq(r.path) + (qs ? `?${qs}` : ''))}"`);
  if (scheme === 'header') parts.push('-H', `"X-API-Key: ${secretRef}"`);
  if (scheme === 'basic') parts.push('-u', `"${secretRef}:x"`);
  if (scheme === 'bearer') parts.push('-H', `"Authorization: Bearer ${secretRef}"`);
  for (const [k, v] of Object.entries(r.headers)) parts.push('-H', sq(`${k}: ${v}`));
  if (r.body !== undefined) parts.push('--data-binary', bodyFile ? `@${sq(bodyFile)}` : sq(r.body.length > INLINE_BODY_MAX ? `${r.body.slice(0, INLINE_BODY_MAX)}…` : r.body));
  return parts.join(' ');
}
