// Reproductions of failed vendor checks: the curl of a connector exchange or a receiver delivery (signature from $CES_SECRET), and the command that re-runs one clause.
import { curlCommand, shq } from '../lib/reproduce.js';
import { SIGNATURE_HEADER } from '../lib/signature.js';
import type { Exchange } from './connector-client.js';
import { CHECK_ENV } from './settings.js';

const env = (k: string): string | undefined => (process.env[k] ? process.env[k] : undefined);

/** The curl of one connector exchange, signed as it was sent (valid, wrong or missing), given up after `maxTimeS`. */
export function exchangeCurl(ex: Exchange, opts: { caFile?: string; maxTimeS?: number; unsigned?: boolean } = {}): string {
  const mode = ex.signature ?? (opts.unsigned ? 'missing' : 'valid');
  const body = ex.requestBody === undefined ? undefined : JSON.stringify(ex.requestBody);
  return curlCommand({
    method: ex.method, url: ex.url, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body,
    sign: { bytes: ex.signed, mode }, caFile: opts.caFile, maxTimeS: opts.maxTimeS,
  });
}

/** The curls of a sequence of exchanges (set-up first), with a comment line naming each step. */
export function exchangesCurl(steps: Array<{ note: string; ex: Exchange }>, opts: { caFile?: string; maxTimeS?: number; unsigned?: boolean } = {}): string {
  return steps.map((s) => `# ${s.note}\n${exchangeCurl(s.ex, opts)}`).join('\n');
}

/** The curl of a webhook delivery as the check sent it (the signature over the raw body, from $CES_SECRET). */
export function deliveryCurl(url: string, headers: Record<string, string>, raw: string, opts: { caFile?: string; maxTimeS?: number; signature?: 'valid' | 'wrong' | 'missing' } = {}): string {
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== SIGNATURE_HEADER.toLowerCase()));
  return curlCommand({ method: 'POST', url, headers: rest, body: raw, sign: { bytes: raw, mode: opts.signature ?? (headers[SIGNATURE_HEADER] ? 'valid' : 'missing'), suffix: ' ' }, caFile: opts.caFile, maxTimeS: opts.maxTimeS });
}

/** The command that re-runs just this clause, where one request cannot show the failure (timing, concurrency). */
export function rerunCommand(clause: string): string {
  const connector = env(CHECK_ENV.connectorUrl);
  const receiver = env(CHECK_ENV.receiverUrl);
  if (!connector && !receiver) return `npx ces test --suite ${clause.startsWith('RECV-') ? 'receiver-check' : 'connector-check'} --grep ${shq(`@${clause}`)}`;
  const ca = env(CHECK_ENV.caFile) ? ` --ca-file ${shq(env(CHECK_ENV.caFile)!)}` : '';
  const unsigned = env(CHECK_ENV.unsigned) === '1';
  const secret = unsigned ? ' --unsigned' : ' --secret "$CES_SECRET"';
  const script = connector && env(CHECK_ENV.script) ? ` --script ${shq(env(CHECK_ENV.script)!)}` : '';
  const conv = connector && env(CHECK_ENV.conversations) ? ` --conversations ${env(CHECK_ENV.conversations)}` : '';
  // The same identity as the run: its idConnectorVersion, website and language.
  const same = connector ? [['connector-version', CHECK_ENV.connectorVersion], ['website', CHECK_ENV.website], ['language', CHECK_ENV.language]]
    .filter(([, k]) => env(k!)).map(([o, k]) => ` --${o} ${shq(env(k!)!)}`).join('') : '';
  return `npx ces check ${connector ? 'connector' : 'webhook-receiver'} ${shq((connector ?? receiver)!)}${secret}${ca}${same}${script}${conv} --only ${clause}`;
}
