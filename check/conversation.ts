// Plays the service through a whole bot conversation from a visitor script: bot setup, first messages, endpoint 6, endpoint 7 per visitor message, echoes of the bot's own messages.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConnectorClient, botWriteBody, newOperatorId, operatorMessage, visitorMessage, type BotWriteBody, type Exchange } from './connector-client.js';
import { QUICK_REPLY_STEP } from './settings.js';
import { abortAfter, LIMIT_OF } from './timing.js';
import { quickReplyValues } from './judge.js';
import { HarnessError } from '../lib/verdicts.js';
import { NOT_FOUND_PROBE_PATH, is2xx, repliesOf } from './evidence.js';

/**
 * The bot of a run: the scenarios listed, the PUT that created it (or not: judge with `botCreated`), and the answer to a path
 * that does not exist (`notFound`), which tells an endpoint that does not exist from one that does not know the bot.
 */
export interface BotSetup { idOperator: string; idBot: string; body: BotWriteBody; scenarios: Exchange; put: Exchange; notFound?: Exchange }

/** Lists the scenarios and creates a bot on the first one (as the service's bot creation flow does); asks once for a path that does not exist. */
export async function setupBot(client: ConnectorClient): Promise<BotSetup> {
  const notFound = await client.call(0, 'GET', NOT_FOUND_PROBE_PATH, { timeoutMs: abortAfter(LIMIT_OF.config), label: 'a path that does not exist (how the connector answers a missing endpoint)' });
  const scenarios = await client.call(1, 'GET', '/external-bots', { timeoutMs: abortAfter(LIMIT_OF.config) });
  const first = Array.isArray(scenarios.json) ? (scenarios.json[0] as { idBot?: unknown } | undefined) : undefined;
  // Without a usable scenario list the checker still tries a bot, so later clauses are judged on their own.
  const idBot = typeof first?.idBot === 'string' ? first.idBot : 'ces-check-unknown-scenario';
  const idOperator = newOperatorId();
  const body = botWriteBody(idBot, client.settings.language);
  const put = await client.call(2, 'PUT', `/bots/${encodeURIComponent(idOperator)}`, { body, timeoutMs: abortAfter(LIMIT_OF.config) });
  return { idOperator, idBot, body, scenarios, put, notFound };
}

export type Step =
  | { kind: 'first-messages'; exchange: Exchange }
  | { kind: 'start'; exchange: Exchange }
  | { kind: 'visitor'; text: string; quickReply: boolean; exchange: Exchange }
  | { kind: 'echo'; of: string; exchange: Exchange }
  /** A message an operator of the desk writes into the conversation (role operator): the connector must stay quiet (CONN-LOOP-01). */
  | { kind: 'operator'; text: string; exchange: Exchange }
  | { kind: 'note'; text: string };

export interface ConversationRun {
  setup: BotSetup;
  idConversation: string;
  /** The id the connector answered on endpoint 6 (it may be its own; the service joins it). */
  connectorConversationId: string;
  steps: Step[];
}

/** What the operator of the desk writes into the scripted conversation. */
export const OPERATOR_TEXT = 'Hello, an operator of the desk writing here.';


/** Runs the visitor script as the service would; never throws for the connector's faults (they are judged later). */
export async function runConversation(client: ConnectorClient, script: string[]): Promise<ConversationRun> {
  const startedAt = performance.now();
  const steps: Step[] = [];
  const timed = async (p: () => Promise<Exchange>): Promise<Exchange> => { const t = performance.now() - startedAt; const ex = await p(); ex.at = Math.round(t); return ex; };
  const setup = await setupBot(client);
  const { idOperator } = setup;

  const first = await timed(() => client.call(5, 'GET', `/bots/${encodeURIComponent(idOperator)}/conversation-first-messages`, { timeoutMs: abortAfter(LIMIT_OF.firstMessages) }));
  steps.push({ kind: 'first-messages', exchange: first });
  // History: the first messages shown (message replies only), as operator messages with ISO 8601 dates.
  const history = repliesOf(first).filter((r) => r?.type === 'message' && r.payload).map((r) => operatorMessage(r.payload, new Date().toISOString()));

  const idConversation = randomUUID();
  const start = await timed(() => client.call(6, 'POST', '/conversations', { body: { idOperator, idConversation, history }, timeoutMs: abortAfter(LIMIT_OF.config) }));
  steps.push({ kind: 'start', exchange: start });
  const answered = (start.json as any)?.idConversation;
  const connectorConversationId = typeof answered === 'string' && answered ? answered : idConversation;
  const messagesPath = `/conversations/${encodeURIComponent(connectorConversationId)}/messages`;
  // An operator of the desk writes first (as after a transfer back): one call of the conversation, judged like every other
  // endpoint-7 answer (schema, JSON, time) and by the loop clause; the connector must reply nothing to it.
  const operator = await timed(() => client.call(7, 'POST', messagesPath, { body: { idOperator, message: operatorMessage({ contentType: 'text', value: OPERATOR_TEXT }) }, timeoutMs: abortAfter(LIMIT_OF.message) }));
  steps.push({ kind: 'operator', text: OPERATOR_TEXT, exchange: operator });

  let lastReplies: any[] = [];
  for (const item of script) {
    let text = item;
    const quickReply = item === QUICK_REPLY_STEP;
    if (quickReply) {
      const offered = quickReplyValues(lastReplies);
      if (!offered.length) { steps.push({ kind: 'note', text: 'quick-reply step skipped: the last answer offered no quick reply' }); continue; }
      text = offered[0]!;
    }
    const ex = await timed(() => client.call(7, 'POST', messagesPath, { body: { idOperator, message: visitorMessage(text) }, timeoutMs: abortAfter(LIMIT_OF.message) }));
    steps.push({ kind: 'visitor', text, quickReply, exchange: ex });
    lastReplies = repliesOf(ex);
    // The service posts every bot message back through endpoint 7 with role operator; the connector must stay quiet.
    for (const r of lastReplies.filter((x) => x?.type === 'message' && x.payload)) {
      const echo = await timed(() => client.call(7, 'POST', messagesPath, { body: { idOperator, message: operatorMessage(r.payload) }, timeoutMs: abortAfter(LIMIT_OF.message) }));
      steps.push({ kind: 'echo', of: summarizePayload(r.payload), exchange: echo });
    }
    if (lastReplies.some((x) => x?.type === 'close')) { steps.push({ kind: 'note', text: 'the connector closed the conversation; the rest of the script is not sent' }); break; }
  }
  return { setup, idConversation, connectorConversationId, steps };
}

export function summarizePayload(p: any): string {
  if (!p || typeof p !== 'object') return JSON.stringify(p);
  if (p.contentType === 'text') return `text "${String(p.value ?? '').slice(0, 60)}${String(p.value ?? '').length > 60 ? '…' : ''}" (${String(p.value ?? '').length} chars)`;
  return String(p.contentType);
}

const said = (t: string) => `"${t.length > 30 ? `${t.slice(0, 29)}…` : t}"`;
/** Where an answer of the conversation came from, as the vendor counts (`visitor` is the number of visitor messages so far). */
export function originOf(s: Exclude<Step, { kind: 'note' }>, visitor: number): string {
  return s.kind === 'first-messages' ? 'first messages' : s.kind === 'start' ? 'POST /conversations'
    : s.kind === 'visitor' ? `answer to visitor message ${visitor} (${said(s.text)})` : s.kind === 'operator' ? `answer to the operator message (${said(s.text)})`
      : `answer to the echo of ${s.of} (after visitor message ${visitor})`;
}

/**
 * Every reply the connector sent in the run with where it came from, numbered as the vendor counts: first messages,
 * POST /conversations, the answer to visitor message n of the script, the answer to an echo of the bot's own message.
 */
export function allReplies(run: ConversationRun): Array<{ origin: string; replies: any[] }> {
  let visitor = 0;
  return run.steps.flatMap((s) => {
    if (s.kind === 'note') return [];
    if (s.kind === 'visitor') visitor++;
    return [{ origin: originOf(s, visitor), replies: repliesOf(s.exchange) }];
  });
}

/** Exchanges of the run (setup included), in order. */
export function exchangesOf(run: ConversationRun): Exchange[] {
  return [run.setup.scenarios, run.setup.put, ...run.steps.flatMap((s) => (s.kind === 'note' ? [] : [s.exchange]))];
}

/** The scripted conversations a run played (sharedConversation's files under `<run>/check`). */
export function playedConversations(runDir: string): ConversationRun[] {
  const dir = path.join(runDir, 'check');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => /^connector-conversation-.*\.json$/.test(f)).flatMap((f) => {
    try { const run = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')); return run?.setup?.put ? [run as ConversationRun] : []; } catch { return []; }
  });
}

/**
 * What a run says once, at the top of its report, when its creation flow failed (G36): the conversations were held with an
 * idOperator of the checker's own, and what needs the bot is NOT JUDGED; undefined when the bot was created.
 */
export function ownOperatorNotice(runs: ConversationRun[]): string | undefined {
  const run = runs.find((r) => !is2xx(r.setup.put));
  if (!run) return undefined;
  const put = run.setup.put;
  const answer = put.error ? 'no answer' : String(put.status);
  return `No bot was created: PUT /bots/${run.setup.idOperator} answered ${answer}. The checks held their conversations with an idOperator of their own `
    + `(${run.setup.idOperator}, G36): every 2xx answer of endpoints 4-7 is judged; what needs the bot, or an answer other than 2xx for that idOperator, is NOT JUDGED.`;
}

/**
 * Runs the conversation once per Playwright run and shares it between workers through a file in the run folder:
 * Playwright restarts a worker after a failed check, and a slow connector must not be played through again each time.
 * The first worker takes a lock file; the others wait for the result file, with a deadline.
 */
export async function sharedConversation(dir: string, key: string, play: () => Promise<ConversationRun>, deadlineMs: number): Promise<ConversationRun> {
  const result = path.join(dir, `connector-conversation-${key}.json`);
  const lock = `${result}.lock`;
  fs.mkdirSync(dir, { recursive: true });
  let mine = false;
  try { fs.closeSync(fs.openSync(lock, 'wx')); mine = true; } catch { mine = false; }
  if (mine) {
    let run: ConversationRun | { harnessError: string };
    try { run = await play(); } catch (e) { run = { harnessError: (e as Error).stack ?? String(e) }; }
    fs.writeFileSync(`${result}.tmp`, JSON.stringify(run));
    fs.renameSync(`${result}.tmp`, result);
  }
  const until = Date.now() + deadlineMs;
  while (!fs.existsSync(result)) {
    if (Date.now() > until) throw new HarnessError('set-up', `the shared conversation was not ready within ${deadlineMs} ms (${result})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const run = JSON.parse(fs.readFileSync(result, 'utf8'));
  if (run.harnessError) throw new HarnessError('set-up', `playing the conversation failed: ${run.harnessError}`);
  return run as ConversationRun;
}
