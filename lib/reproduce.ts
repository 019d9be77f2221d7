// Copy-paste reproductions of a failed check: a curl command built from a recorded request, secrets never in clear (signatures computed from $CES_SECRET, keys as $CES_API_KEY, tokens as $CES_TOKEN).
import path from 'node:path';
import { knownSecrets } from './mask.js';
import { ROOT } from './paths.js';

/** POSIX shell single-quoting: safe for any bytes but NUL. */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface ReproRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** An X-Service-Signature to compute in the shell from $CES_SECRET over these exact bytes (`wrong`: over other bytes, as the check sent it). */
  sign?: { bytes: string; mode: 'valid' | 'wrong' | 'missing'; suffix?: string };
  caFile?: string;
  /** curl gives up after this many seconds (the spec limit plus the harness tolerance, for timing checks). */
  maxTimeS?: number;
  /** Parts of the URL replaced by shell text using variables an earlier step set (`{literal, shell}`, the shell text as written inside double quotes), e.g. the connector's own conversation id. */
  urlVariables?: Array<{ literal: string; shell: string }>;
  /** Keeps a string field of the JSON answer in a shell variable for later steps (the answer is still printed). */
  capture?: { field: string; variable: string };
}

/**
 * The command that starts ces in a printed re-run command (one place): the absolute path of the `ces` that ran (bin/ces.js of
 * this package, executable), so the command works wherever it is pasted; `npx ces` worked only where the package is installed.
 */
export const cesCommand = (): string => shq(path.join(ROOT, 'bin', 'ces.js'));

/** Text inside double quotes in the shell: `$`, backquote, `"` and `\` escaped. */
const dq = (s: string): string => s.replace(/[$`"\\]/g, (c) => `\\${c}`);

/** Header names whose values are credentials: replaced by shell variables the reader sets. */
const CREDENTIAL_HEADERS: Record<string, string> = { 'x-api-key': '$CES_API_KEY', authorization: '$CES_AUTHORIZATION', cookie: '$CES_COOKIE' };

function credentialValue(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === 'authorization' && /^Bearer /i.test(value)) return 'Bearer $CES_TOKEN';
  if (lower === 'authorization' && /^Basic /i.test(value)) return 'Basic $(printf %s "$CES_API_KEY:x" | base64)';
  return CREDENTIAL_HEADERS[lower];
}

/** The URL with credentials in its query (`key=`, `token=`) replaced by shell variables, and any known secret masked. */
function safeUrl(url: string): { text: string; variables: boolean } {
  let variables = false;
  const out = url.replace(/([?&](?:key|api_key|apiKey|access_token|token)=)[^&#]*/g, (_m, p: string) => { variables = true; return `${p}${p.includes('token') ? '$CES_TOKEN' : '$CES_API_KEY'}`; });
  return { text: out, variables };
}

/** A bash snippet that replays the request with curl and prints the status, the time taken and the answer. */
export function curlCommand(r: ReproRequest): string {
  const lines: string[] = [];
  const args: string[] = ['curl', '-sS', '-X', r.method];
  if (r.caFile) args.push('--cacert', shq(r.caFile));
  if (r.maxTimeS) args.push('--max-time', String(r.maxTimeS));
  const needs = new Set<string>();
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    if (k.toLowerCase() === 'x-service-signature') continue;
    const cred = credentialValue(k, v);
    if (cred) { needs.add(cred.includes('TOKEN') ? 'CES_TOKEN' : cred.includes('AUTHORIZATION') ? 'CES_AUTHORIZATION' : cred.includes('COOKIE') ? 'CES_COOKIE' : 'CES_API_KEY'); args.push('-H', `"${k}: ${cred}"`); } else args.push('-H', shq(`${k}: ${v}`));
  }
  if (r.sign && r.sign.mode !== 'missing') {
    needs.add('CES_SECRET');
    lines.push(`SIGNED=${shq(r.sign.bytes + (r.sign.mode === 'wrong' ? r.sign.suffix ?? '#not-these-bytes' : ''))}   # the bytes the signature covers (G1/G2)${r.sign.mode === 'wrong' ? ': deliberately not the bytes sent' : ''}`);
    lines.push(`SIG=$(printf '%s' "$SIGNED" | openssl dgst -sha256 -hmac "$CES_SECRET" | sed 's/^.*= //')`);
    args.push('-H', '"X-Service-Signature: sha256=$SIG"');
  }
  if (r.body !== undefined) { lines.push(`BODY=${shq(r.body)}`); args.push('--data-binary', '"$BODY"'); }
  const url = safeUrl(r.url);
  if (url.variables) needs.add('CES_API_KEY');
  const vars = r.urlVariables?.filter((v) => v.literal && url.text.includes(v.literal)) ?? [];
  if (vars.length) {
    let text = dq(url.text);
    for (const v of vars) text = text.split(dq(v.literal)).join(v.shell);
    args.push(`"${text}"`);
  } else args.push(url.variables ? `"${url.text}"` : shq(url.text));
  args.push('-w', shq('\\nstatus %{http_code} in %{time_total} s\\n'));
  const head = [...needs].sort().map((v) => `: "\${${v}:?set ${v} first (${v === 'CES_SECRET' ? 'the signing secret' : 'the credential'}; ces never writes it)}"`);
  const call = r.capture
    ? [`ANSWER=$(${args.join(' ')})`, `printf '%s\\n' "$ANSWER"`,
      `${r.capture.variable}=$(printf '%s' "$ANSWER" | sed -n 's/.*"${r.capture.field}" *: *"\\([^"]*\\)".*/\\1/p' | head -n 1)   # the ${r.capture.field} the connector answered, used below`]
    : [args.join(' ')];
  let text = [...head, ...lines, ...call].join('\n');
  // The net under it: a secret that slipped into a header value or a body is masked.
  for (const s of knownSecrets()) if (s && s.length >= 4) text = text.split(s).join('***');
  return text;
}
