// Fixtures of the connector checks: the settings (`ces check` variables or the target's fake connector), a signing client whose calls become report steps, and one scripted conversation per run shared by its workers.
import { test as base, expect, currentTarget, clauses, checkedPartner } from '../fixtures.js';
import { agentFor, http } from '../../lib/http.js';
import { mask } from '../../lib/mask.js';
import { connectorSettings, missingUrl, type ConnectorCheckSettings } from '../../check/settings.js';
import { ConnectorClient, describe as describeExchange, type Exchange } from '../../check/connector-client.js';
import os from 'node:os';
import path from 'node:path';
import { runConversation, setupBot, sharedConversation, summarizePayload, type BotSetup, type ConversationRun } from '../../check/conversation.js';
import { attachSequence, type SequenceCall } from '../evidence.js';
import { saveCheckConversation } from '../../transcripts/from-check.js';

export { expect, clauses };

/** Longest a scripted conversation may take: every step at the 10 s limit plus grace (script of up to 8 steps with echoes). */
const CONVERSATION_DEADLINE_MS = 100_000;

export const test = base.extend<{ connector: ConnectorCheckSettings; client: ConnectorClient; bot: BotSetup }, { conversation: () => Promise<ConversationRun> }>({
  connector: async ({ target }, use) => {
    await use(checkedPartner(missingUrl(target, 'connector'), () => connectorSettings(target), 'CONN-HTTPS-01'));
  },
  client: async ({ connector, api }, use) => { await use(new ConnectorClient(connector, (req, label) => api.request(req, label))); },
  bot: async ({ client }, use) => { await use(await setupBot(client)); },
  conversation: [async ({}, use) => {
    // One scripted conversation per run, played on first use (after the HTTPS gate): the judging checks read it and attach what they judged.
    let run: Promise<ConversationRun> | undefined;
    await use(() => {
      if (!run) {
        const target = currentTarget();
        const s = connectorSettings(target);
        const agent = agentFor(target.ca_file);
        // The conversation is also saved as a transcript (transcripts/from-check.ts; `--record DIR` keeps a copy).
        const play = () => runConversation(new ConnectorClient(s, (req) => http(req, agent)), s.script).then((r) => { saveCheckConversation(r, s); return r; });
        // Workers of one run share their parent, the Playwright runner: its pid keys the run's conversation.
        run = sharedConversation(path.join(process.env.CES_RUN_DIR ?? os.tmpdir(), 'check'), String(process.ppid), play, CONVERSATION_DEADLINE_MS);
      }
      return run;
    });
  }, { scope: 'worker' }],
});

/** Attaches exchanges the check judged (masked request and answer, measured time). */
export async function attachExchanges(title: string, exchanges: Exchange[]): Promise<void> {
  const body = exchanges.map((ex) => ({
    summary: describeExchange(ex),
    request: { method: ex.method, url: ex.url, signedBytes: ex.signed, body: ex.requestBody },
    response: ex.error ? { error: ex.error } : { status: ex.status, contentType: ex.contentType, body: ex.json ?? ex.text },
    ms: Math.round(ex.ms),
  }));
  await test.info().attach(title, { body: mask(JSON.stringify(body, null, 2)), contentType: 'application/json' });
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
    const label = s.kind === 'first-messages' ? 'endpoint 5: first messages' : s.kind === 'start' ? 'endpoint 6: POST /conversations' : s.kind === 'visitor' ? 'endpoint 7: visitor message' : `endpoint 7: echo (operator) ${s.of}`;
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

export const is2xx = (ex: Exchange): boolean => ex.status !== undefined && ex.status >= 200 && ex.status <= 299;
export const repliesOf = (ex: Exchange): any[] => (Array.isArray((ex.json as any)?.replies) ? (ex.json as any).replies : []);
