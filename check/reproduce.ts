// Reproductions of failed vendor checks: the curl sequence of the connector calls a failure depends on, or of a receiver delivery (signatures from $CES_SECRET), and the command that re-runs one clause with the run's options.
import path from 'node:path';
import { cesCommand, curlCommand, shq } from '../lib/reproduce.js';
import { SIGNATURE_HEADER } from '../lib/signature.js';
import type { Exchange } from './connector-client.js';
import type { ConversationRun } from './conversation.js';
import { CHECK_ENV } from './settings.js';

const env = (k: string): string | undefined => (process.env[k] ? process.env[k] : undefined);

export interface CurlOptions { caFile?: string; maxTimeS?: number; unsigned?: boolean }

/** The curl of one connector exchange, signed as it was sent (valid, wrong or missing), given up after `maxTimeS`. */
export function exchangeCurl(ex: Exchange, opts: CurlOptions & { urlVariables?: Array<{ literal: string; shell: string }>; capture?: { field: string; variable: string } } = {}): string {
  const mode = ex.signature ?? (opts.unsigned ? 'missing' : 'valid');
  const body = ex.requestBody === undefined ? undefined : JSON.stringify(ex.requestBody);
  return curlCommand({
    method: ex.method, url: ex.url, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body,
    sign: { bytes: ex.signed, mode }, caFile: opts.caFile, maxTimeS: opts.maxTimeS, urlVariables: opts.urlVariables, capture: opts.capture,
  });
}

/** The id a POST /conversations answer gave when it is the connector's own (G23): later calls of a fresh run must use the new one. */
function ownConversationId(ex: Exchange): string | undefined {
  if (ex.method !== 'POST' || !/\/conversations$/.test(ex.path)) return undefined;
  const answered = (ex.json as { idConversation?: unknown } | undefined)?.idConversation;
  const sent = (ex.requestBody as { idConversation?: unknown } | undefined)?.idConversation;
  return typeof answered === 'string' && answered !== '' && answered !== sent ? answered : undefined;
}

/**
 * The curls of a sequence of exchanges (set-up first), with a comment line naming each step. A conversation the connector
 * opened under its own id is captured from the answer into a shell variable and used by the later calls, as the service does.
 */
export function exchangesCurl(steps: Array<{ note: string; ex: Exchange }>, opts: CurlOptions = {}): string {
  const urlVariables: Array<{ literal: string; shell: string }> = [];
  return steps.map((s, i) => {
    const own = ownConversationId(s.ex);
    const used = own !== undefined && steps.slice(i + 1).some((later) => later.ex.path.includes(`/conversations/${encodeURIComponent(own)}/`));
    const variable = used ? `CONV${urlVariables.length + 1}` : undefined;
    const text = `# ${s.note}\n${exchangeCurl(s.ex, { ...opts, urlVariables: [...urlVariables], ...(variable ? { capture: { field: 'idConversation', variable } } : {}) })}`;
    if (variable) urlVariables.push({ literal: `/conversations/${encodeURIComponent(own!)}/`, shell: `/conversations/\${${variable}}/` });
    return text;
  }).join('\n');
}

const sameCall = (a: Exchange, b: Exchange) => a.method === b.method && a.url === b.url && JSON.stringify(a.requestBody) === JSON.stringify(b.requestBody);

/** Whether a call names the bot operator (in its path, its query or its body). */
const namesBot = (ex: Exchange, idOperator: string) => ex.url.includes(encodeURIComponent(idOperator)) || JSON.stringify(ex.requestBody ?? '').includes(idOperator);

/**
 * The calls a failure depends on, in order, so that its reproduction shows the same failure against a freshly started
 * connector: a call of the scripted conversation comes with the bot's creation, the conversation's opening and every
 * earlier message of it; a call naming the bot comes after its creation (PUT /bots/{idOperator}).
 */
export function withDependencies(exchanges: Exchange[], run?: ConversationRun): Exchange[] {
  if (!run) return exchanges;
  const played = [run.setup.put, ...run.steps.flatMap((s) => (s.kind === 'note' || s.kind === 'first-messages' ? [] : [s.exchange]))];
  const last = played.reduce((at, ex, i) => (exchanges.some((e) => sameCall(e, ex)) ? i : at), -1);
  // A call of the conversation needs its opening (index 1) and what came before: the whole prefix up to the last one judged.
  const prefix = last >= 1 ? played.slice(0, last + 1) : [];
  const rest = exchanges.filter((e) => !prefix.some((p) => sameCall(p, e)));
  const needsPut = !prefix.length && rest.some((e) => !sameCall(e, run.setup.put) && e.endpoint !== 1 && namesBot(e, run.setup.idOperator));
  // Each call once (the bot's creation is both a dependency and a call some checks judge).
  return [...(needsPut ? [run.setup.put] : []), ...prefix, ...rest].filter((e, i, all) => all.findIndex((o) => sameCall(o, e)) === i);
}

/** The curl of a webhook delivery as the check sent it (the signature over the raw body, from $CES_SECRET). */
export function deliveryCurl(url: string, headers: Record<string, string>, raw: string, opts: { caFile?: string; maxTimeS?: number; signature?: 'valid' | 'wrong' | 'missing' } = {}): string {
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== SIGNATURE_HEADER.toLowerCase()));
  return curlCommand({ method: 'POST', url, headers: rest, body: raw, sign: { bytes: raw, mode: opts.signature ?? (headers[SIGNATURE_HEADER] ? 'valid' : 'missing'), suffix: ' ' }, caFile: opts.caFile, maxTimeS: opts.maxTimeS });
}

/** A script option as the re-run must give it: inline JSON as it was, a file by its absolute path (the command works from any folder). */
const scriptArg = (script: string): string => (script.trim().startsWith('[') ? script : path.resolve(script));

/**
 * The command that re-runs just this clause, where one request cannot show the failure (timing, concurrency), with the run's
 * options: the same identity (idConnectorVersion, website, language), script, conversations, trust (--ca-file, absolute), and
 * its reports beside the run's own when the run had --report-dir. Every path is absolute, so it works from any folder.
 */
export function rerunCommand(clause: string): string {
  const connector = env(CHECK_ENV.connectorUrl);
  const receiver = env(CHECK_ENV.receiverUrl);
  if (!connector && !receiver) return `${cesCommand()} test --suite ${clause.startsWith('RECV-') ? 'receiver-check' : 'connector-check'} --grep ${shq(`@${clause}`)}`;
  const opt = (name: string, value: string | undefined) => (value ? ` --${name} ${shq(value)}` : '');
  const flag = (name: string, on: boolean) => (on ? ` --${name}` : '');
  const unsigned = env(CHECK_ENV.unsigned) === '1';
  const parts = [
    `${cesCommand()} check ${connector ? 'connector' : 'webhook-receiver'} ${shq((connector ?? receiver)!)}`,
    unsigned ? ' --unsigned' : ' --secret "$CES_SECRET"',
    opt('ca-file', env(CHECK_ENV.caFile) && path.resolve(env(CHECK_ENV.caFile)!)),
    flag('allow-http', env(CHECK_ENV.allowHttp) === '1'),
    // The same identity as the run: its idConnectorVersion, website and language; its script and conversations.
    ...(connector ? [
      opt('connector-version', env(CHECK_ENV.connectorVersion)), opt('website', env(CHECK_ENV.website)), opt('language', env(CHECK_ENV.language)),
      opt('script', env(CHECK_ENV.script) && scriptArg(env(CHECK_ENV.script)!)), env(CHECK_ENV.conversations) ? ` --conversations ${env(CHECK_ENV.conversations)}` : '',
    ] : []),
    flag('strict', env(CHECK_ENV.strict) === '1'),
    opt('report-dir', env(CHECK_ENV.reportDir) && `${path.resolve(env(CHECK_ENV.reportDir)!)}-${clause}`),
    ` --only ${clause}`,
  ];
  return parts.join('');
}
