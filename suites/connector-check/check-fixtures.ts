// Fixtures of the connector checks: the settings (`ces check` variables or the target's fake connector), a signing client whose calls become report steps, and one scripted conversation per run shared by its workers.
import { test as base, expect, currentTarget, clauses, checkedPartner } from '../fixtures.js';
import { agentFor, http } from '../../lib/http.js';
import { mask } from '../../lib/mask.js';
import { connectorSettings, missingUrl, type ConnectorCheckSettings } from '../../check/settings.js';
import { ConnectorClient, describe as describeExchange, describe, brief, endpointOf, type Exchange } from '../../check/connector-client.js';
import os from 'node:os';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runConversation, sharedConversation, summarizePayload, type BotSetup, type ConversationRun } from '../../check/conversation.js';
import { attachSequence, type SequenceCall } from '../evidence.js';
import { saveCheckConversation } from '../../transcripts/from-check.js';
import { notJudged, reproduction } from '../verdicts.js';
import { ANNOTATION } from '../../lib/verdicts.js';
import { exchangesCurl, rerunCommand, withDependencies } from '../../check/reproduce.js';
import { botCreated, endpointAbsent, is2xx, refusedAuth } from '../../check/evidence.js';
import type { TestInfo } from '@playwright/test';
import { SIGNATURE_HEADER, verify } from '../../lib/signature.js';
import { confirmPartnerDown, partnerDown, recordBot } from '../../check/partner.js';
import { transportCause } from '../../check/preflight.js';
import type { ClientHooks } from '../../check/connector-client.js';
import { withCopies } from '../fixtures/copies.js';

export { expect, clauses };

/** Longest a scripted conversation may take: every step at the 10 s limit plus grace (script of up to 8 steps with echoes). */
const CONVERSATION_DEADLINE_MS = 100_000;

/** NOT JUDGED, with since when, once the partner stopped answering altogether (the run then exits 2). */
export function stopIfPartnerDown(): void {
  const down = partnerDown();
  if (down) notJudged(`the connector stopped answering at ${down.since} (${down.cause}): nothing more can be judged`);
}

/** Hooks of a run's clients: bots created are recorded for removal; a call without answer checks whether the partner is gone. */
function hooks(s: ConnectorCheckSettings, caFile: string | undefined, inTest: boolean): ClientHooks {
  return {
    botCreated: (id) => recordBot(id),
    noAnswer: async (ex) => {
      const down = await confirmPartnerDown(s.url, caFile, new Date(Date.now() - ex.ms), `${ex.method} ${ex.path}: ${transportCause(ex.error ?? '')}`);
      if (down && inTest) stopIfPartnerDown();
    },
  };
}

/** Clauses where one request cannot show the failure: the reproduction adds the command that re-runs the clause. */
const RERUN_CLAUSES = ['CONN-TIME-01', 'CONN-EP5-01', 'CONN-EP7-01', 'CONN-SCEN-01', 'CONN-CONC-01'];
/**
 * Title of the attachment naming the calls that show a check's failure (attachFailing): its reproduction replays those, with
 * what they depend on, rather than every call the check judged.
 */
const FAILING_CALLS = 'the calls that show the failure';

/** The exchanges a check attached (attachExchanges; only those of the attachment titled `only`), in order, each once. */
function attachedExchanges(info: TestInfo, secret: string, only?: string): Exchange[] {
  const seen = new Set<string>();
  const out: Exchange[] = [];
  for (const a of info.attachments) {
    if (a.contentType !== 'application/json' || !a.body || (only !== undefined && a.name !== only)) continue;
    let items: any;
    try { items = JSON.parse(a.body.toString('utf8')); } catch { continue; }
    // A step of api.request: {request: {method, url, headers, body}, response}; the signed bytes are the body, or the raw query of a GET.
    if (!Array.isArray(items) && items?.request?.headers) {
      const r = items.request;
      const signed = typeof r.body === 'string' ? r.body : String(r.url).includes('?') ? String(r.url).slice(String(r.url).indexOf('?') + 1) : '';
      const header = r.headers[SIGNATURE_HEADER] as string | undefined;
      const mode = !header ? 'missing' : verify(secret, signed, header).ok ? 'valid' : 'wrong';
      let body: unknown;
      try { body = typeof r.body === 'string' ? JSON.parse(r.body) : undefined; } catch { body = undefined; }
      items = [{ request: { method: r.method, url: r.url, signedBytes: signed, signature: mode, body }, response: items.response, ms: items.response?.ms }];
    }
    if (!Array.isArray(items)) continue;
    for (const it of items) {
      const r = it?.request;
      if (!r?.method || !r?.url || typeof r.signedBytes !== 'string') continue;
      const key = `${r.method} ${r.url} ${JSON.stringify(r.body)} ${r.signature}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const path = new URL(r.url).pathname.slice(new URL(connectorSettings(currentTarget()).url).pathname.replace(/\/$/, '').length);
      const answer = it.response?.body;
      out.push({
        endpoint: endpointOf(r.method, path), method: r.method, path, url: r.url, signed: r.signedBytes, requestBody: r.body, ms: Number(it.ms) || 0, status: it.response?.status, error: it.response?.error,
        ...(answer !== undefined && typeof answer !== 'string' ? { json: answer } : {}), ...(r.signature !== 'valid' ? { signature: r.signature } : {}),
      });
    }
  }
  return out;
}

/** Longest curl sequence of a reproduction: the calls judged (at most 10) with what they depend on. */
const MAX_REPRODUCED_CALLS = 24;

/**
 * After a check that failed or warned: its reproduction (the curls of what it judged, with every call they depend on: the bot's
 * creation, the conversation's opening and earlier messages; a re-run command for timing and concurrency).
 */
function reproduceCheck(info: TestInfo, run: ConversationRun | undefined): void {
  const failed = info.status !== info.expectedStatus && info.status !== 'skipped';
  const warned = info.annotations.some((x) => x.type === ANNOTATION.warn);
  if ((!failed && !warned) || info.annotations.some((x) => x.type === ANNOTATION.reproduction)) return;
  const s = connectorSettings(currentTarget());
  const failing = attachedExchanges(info, s.secret, FAILING_CALLS);
  // The calls that failed, else every call the check judged (at most 10), each with what it depends on.
  const shown = (failing.length ? failing : attachedExchanges(info, s.secret)).slice(0, 10);
  const exchanges = withDependencies(shown, run).slice(0, MAX_REPRODUCED_CALLS);
  const clauseIds = info.tags.map((t) => t.replace(/^@/, ''));
  const timing = clauseIds.some((c) => RERUN_CLAUSES.includes(c));
  const parts: string[] = [];
  // Where no call shows it (timing, concurrency, a check without calls such as the URL's scheme): the command that re-runs the clause.
  if (timing || !exchanges.length) parts.push(`# re-run just this clause:\n${rerunCommand(clauseIds.find((c) => RERUN_CLAUSES.includes(c)) ?? clauseIds[0]!)}`);
  if (exchanges.length) {
    const base = Math.min(exchanges.length, shown.length);
    const what = failing.length ? (failing.length === 1 ? 'the call that failed' : `the ${failing.length} calls that failed`) : base === 1 ? 'the call the check judged' : `the ${base} calls the check judged`;
    const deps = exchanges.length - base;
    parts.push(`# ${what}${deps > 0 ? `, after the ${deps === 1 ? 'call' : `${deps} calls`} ${base === 1 ? 'it depends' : 'they depend'} on` : ''}${exchanges.length > 1 ? ', each once, in order' : ''}, as sent (set CES_SECRET to the connector's secret):`);
    parts.push(exchangesCurl(exchanges.map((ex) => ({ note: `${ex.method} ${ex.path}${ex.signature ? ` (${ex.signature} signature)` : ''}: answered ${ex.error ? `nothing (${ex.error.split('\n')[0]})` : ex.status} in ${Math.round(ex.ms)} ms during the check`, ex })),
      { caFile: currentTarget().ca_file, unsigned: s.unsigned, maxTimeS: timing ? 15 : 30 }));
  }
  if (parts.length) reproduction(parts.join('\n'));
}

/** The run's scripted conversation: played on first call; `played()` gives it once this check has read it (reproductions). */
export interface SharedConversation { (): Promise<ConversationRun>; played(): ConversationRun | undefined }

export const test = withCopies(base.extend<{ connector: ConnectorCheckSettings; client: ConnectorClient; bot: BotSetup; reproduceExchanges: void; conversation: SharedConversation }>({
  reproduceExchanges: [async ({ conversation }, use, info) => { await use(); try { reproduceCheck(info, conversation.played()); } catch { /* a reproduction helps; it never becomes a failure of its own */ } }, { auto: true }],
  connector: async ({ target }, use) => {
    const s = checkedPartner(missingUrl(target, 'connector'), () => connectorSettings(target), 'CONN-HTTPS-01');
    stopIfPartnerDown();
    await use(s);
  },
  client: async ({ connector, api, target }, use) => { await use(new ConnectorClient(connector, (req, label) => api.request(req, label), hooks(connector, target.ca_file, true))); },
  // One bot per run: the one the shared conversation created (the connector contract has no way to delete bots).
  bot: async ({ connector, conversation }, use) => {
    void connector;
    const run = await conversation();
    await attachExchanges('bot creation (shared by the checks of the run)', [run.setup.scenarios, run.setup.put]);
    await use(run.setup);
  },
  // Scoped to the check, not the worker: sharedConversation already plays it once per run (a file in the run folder), and a
  // worker-scoped fixture would set these checks apart from the other suites' (Playwright keys a worker by its worker
  // fixtures), so in a run of every suite each lane started a worker of its own for them, last (3 s each at the run's end).
  conversation: async ({}, use) => {
    // One scripted conversation per run, played on first use (after the HTTPS gate): the judging checks read it and attach what they judged.
    let run: Promise<ConversationRun> | undefined;
    let settled: ConversationRun | undefined;
    const get = async () => {
      if (!run) {
        const target = currentTarget();
        const s = connectorSettings(target);
        const agent = agentFor(target.ca_file);
        // The conversation is also saved as a transcript (transcripts/from-check.ts; `--record DIR` keeps a copy).
        const play = () => runConversation(new ConnectorClient(s, (req) => http(req, agent), hooks(s, target.ca_file, false)), s.script).then((r) => { saveCheckConversation(r, s); return r; });
        // Workers of one run share their parent, the Playwright runner: its pid keys the run's conversation; the connector URL
        // too, as `ces test` may give each worker its own embedded stack (CES_TARGETS), hence its own connector.
        const key = `${process.ppid}-${createHash('sha256').update(s.url).digest('hex').slice(0, 12)}`;
        run = sharedConversation(path.join(process.env.CES_RUN_DIR ?? os.tmpdir(), 'check'), key, play, CONVERSATION_DEADLINE_MS);
      }
      const played = await run;
      settled = played;
      stopIfPartnerDown();
      return played;
    };
    await use(Object.assign(get, { played: () => settled }));
  },
}));

/** Attaches exchanges the check judged (masked request and answer, measured time). */
export async function attachExchanges(title: string, exchanges: Exchange[]): Promise<void> {
  const body = exchanges.map((ex) => ({
    summary: describeExchange(ex),
    request: { method: ex.method, url: ex.url, signedBytes: ex.signed, signature: ex.signature ?? 'valid', body: ex.requestBody },
    response: ex.error ? { error: ex.error } : { status: ex.status, contentType: ex.contentType, body: ex.json ?? ex.text },
    ms: Math.round(ex.ms),
  }));
  await test.info().attach(title, { body: mask(JSON.stringify(body, null, 2)), contentType: 'application/json' });
}

/** Attaches the calls that show the check's failure: what its reproduction replays (with what they depend on). */
export async function attachFailing(exchanges: Exchange[]): Promise<void> {
  if (exchanges.length) await attachExchanges(FAILING_CALLS, exchanges);
}

/** Attaches the conversation's transcript (every exchange) and its sequence diagram. */
export async function attachConversation(run: ConversationRun): Promise<void> {
  const calls: SequenceCall[] = [];
  for (const s of run.steps) {
    if (s.kind === 'note') { const last = calls[calls.length - 1]; if (last) last.note = s.text; continue; }
    const ex = s.exchange;
    const at = ex.at ?? 0;
    const failed = ex.error !== undefined || (ex.status ?? 0) < 200 || (ex.status ?? 0) > 299;
    if (s.kind === 'visitor') calls.push({ from: 'visitor', to: 'service', label: `${s.quickReply ? 'quick reply: ' : ''}"${s.text.slice(0, 50)}"`, at });
    const label = s.kind === 'first-messages' ? 'endpoint 5: first messages' : s.kind === 'start' ? 'endpoint 6: POST /conversations' : s.kind === 'visitor' ? 'endpoint 7: visitor message'
      : s.kind === 'operator' ? `endpoint 7: operator message "${s.text.slice(0, 40)}"` : `endpoint 7: echo (operator) ${s.of}`;
    calls.push({ from: 'service', to: 'connector', label, at, ms: Math.round(ex.ms), failed });
    const replies: any[] = Array.isArray((ex.json as any)?.replies) ? (ex.json as any).replies : [];
    calls.push({ from: 'connector', to: 'service', label: ex.error ? `no answer: ${ex.error.slice(0, 60)}` : `${ex.status}: ${replies.length ? replies.map((r) => (r?.type === 'message' ? summarizePayload(r.payload) : String(r?.type))).join(', ').slice(0, 90) : 'no replies'}`, at: at + Math.round(ex.ms), failed });
    if (s.kind === 'visitor' || s.kind === 'first-messages') {
      const shown = replies.filter((r) => r?.type === 'message').map((r) => summarizePayload(r.payload));
      if (shown.length && !failed) calls.push({ from: 'service', to: 'visitor', label: shown.join(' | ').slice(0, 90), at: at + Math.round(ex.ms) });
    }
  }
  await attachSequence(`conversation with ${run.setup.idOperator}`, calls);
  await attachExchanges('transcript (every call of the conversation)', [run.setup.scenarios, run.setup.put, ...run.steps.flatMap((s) => (s.kind === 'note' ? [] : [s.exchange]))]);
  const notes = run.steps.filter((s) => s.kind === 'note').map((s) => (s as { text: string }).text);
  if (notes.length) test.info().annotations.push({ type: 'note', description: notes.join('; ') });
}

export { is2xx };

/** What the spec's endpoint numbers are called in reasons. */
export const ENDPOINT_NAME: Record<number, string> = {
  1: 'endpoint 1 GET /external-bots', 2: 'endpoint 2 PUT /bots/{idOperator}', 3: 'endpoint 3 GET /bots/{idOperator}', 4: 'endpoint 4 GET /availability-strategies',
  5: 'endpoint 5 GET /bots/{idOperator}/conversation-first-messages', 6: 'endpoint 6 POST /conversations', 7: 'endpoint 7 POST /conversations/{idConversation}/messages',
};

/**
 * An answer refused for its credentials (401/403) is evidence about the signature only (CONN-AUTH-02), never about the
 * endpoint's answers: the check is NOT JUDGED.
 */
export function notRefused(ex: Exchange): void {
  if (refusedAuth(ex)) notJudged(`${brief(ex)}: the call was refused for its credentials (see CONN-AUTH-02), so its answer says nothing about this clause`);
}

/**
 * The one cause of every clause left NOT JUDGED for want of a bot (G36), as one sentence, the same in every check: the
 * terminal groups NOT JUDGED rows by their first sentence.
 */
export const noBotCause = (bot: BotSetup): string => `No bot was created (${brief(bot.put)}; see CONN-EP2-01).`;

/** A reason that names the missing bot first when the run has none (G36), else the reason as it is. */
export const orNoBot = (bot: BotSetup, reason: string): string => (botCreated(bot.put) ? reason : `${noBotCause(bot)} ${reason.charAt(0).toUpperCase()}${reason.slice(1)}`);

/**
 * Fails the check when the answer `ex` shows its endpoint does not exist (answered as a path that does not exist, or 405):
 * whatever bot it named, the endpoint is missing, which the service calls for every bot it creates.
 */
function failIfAbsent(bot: BotSetup, ex: Exchange | undefined): void {
  if (!ex || !endpointAbsent(ex, bot.notFound)) return;
  const like = ex.status === 404 && bot.notFound ? `, the answer it gives a path that does not exist (${brief(bot.notFound)})` : '';
  expect(false, `${ENDPOINT_NAME[ex.endpoint] ?? `${ex.method} ${ex.path}`} does not exist: ${describe(ex)}${like}. The service calls it for every bot it creates.`).toBe(true);
}

/**
 * A check whose evidence needs the bot itself (reading it back, its distribution rules): NOT JUDGED when PUT /bots/{idOperator}
 * created none. One exception: the answer `ex` shows its endpoint does not exist, which fails the check under its own clause.
 */
export function needsBot(bot: BotSetup, ex?: Exchange): void {
  if (botCreated(bot.put)) return;
  failIfAbsent(bot, ex);
  notJudged(`${noBotCause(bot)} This clause is about the bot itself, and what a connector answers about a bot it never created says nothing about it.`);
}

/**
 * G36: when no bot was created, the checker still calls endpoints 4-7 with an idOperator of its own, and a 2xx answer is
 * evidence judged as any other; a refusal, an error or no answer for an idOperator the connector was never given is NOT JUDGED,
 * never FAIL; only the clause of the endpoint itself (`ownEndpoint`) fails when the answer shows the endpoint does not exist.
 */
export function answeredWithoutBot(bot: BotSetup, ex: Exchange, ownEndpoint = false): void {
  if (botCreated(bot.put) || is2xx(ex)) return;
  if (ownEndpoint) failIfAbsent(bot, ex);
  notJudged(`${noBotCause(bot)} The answer to ${brief(ex)}, for an idOperator the connector was never given, says nothing about this clause.`);
}

/** The answers a check may judge (G36): every one when the run created its bot, else only the 2xx ones. */
export const evidenceOf = (bot: BotSetup, calls: Exchange[]): Exchange[] => (botCreated(bot.put) ? calls : calls.filter(is2xx));
export { repliesOf } from '../../check/evidence.js';
