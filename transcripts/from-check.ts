// The transcript of the connector check's scripted conversation (`ces check connector ... --record DIR`): the check plays the service itself, so the turns hold the connector's answers as it received them.
import fs from 'node:fs';
import path from 'node:path';
import { toolVersion } from '../lib/landing.js';
import type { ConversationRun } from '../check/conversation.js';
import type { ConnectorCheckSettings } from '../check/settings.js';
import { TRANSCRIPT_FORMAT, writeTranscript, type Transcript, type Turn } from './format.js';
import { failureText, normaliseReplies, normaliseVariables, type NormaliseContext } from './normalise.js';
import { transcriptsPage } from './report.js';
import { readTranscript } from './format.js';
import { withoutCredentials } from './from-service.js';

/** Set by `ces check connector --record DIR` for the Playwright run: the folder the transcripts go to. */
export const RECORD_ENV = 'CES_CHECK_RECORD';

const is2xx = (s: number | undefined) => s !== undefined && s >= 200 && s <= 299;

export function transcriptFromCheck(run: ConversationRun, settings: Pick<ConnectorCheckSettings, 'url' | 'website' | 'language'>): Transcript {
  const ctx: NormaliseContext = { connectorUrl: settings.url, rules: run.setup.body.distributionRules };
  const turns: Turn[] = [];
  let startVariables: Record<string, string> | undefined;
  for (const s of run.steps) {
    if (s.kind === 'note') continue;
    const ex = s.exchange;
    const failure = ex.error ? failureText(/abort|timeout/i.test(ex.error) ? 'no answer within' : `network error: ${ex.error}`) : !is2xx(ex.status) ? `HTTP ${ex.status}` : ex.json === undefined ? 'answer is not JSON' : undefined;
    const body = ex.json as { replies?: unknown; variables?: unknown } | undefined;
    if (s.kind === 'first-messages') turns.push({ firstMessages: failure ? [] : normaliseReplies(body?.replies, ctx), ms: Math.round(ex.ms), ...(failure ? { failure } : {}) });
    if (s.kind === 'start') startVariables = normaliseVariables(body?.variables);
    if (s.kind === 'visitor') {
      const variables = { ...(turns.length === 1 ? startVariables : {}), ...(failure ? {} : normaliseVariables(body?.variables)) };
      turns.push({
        visitor: s.text, ...(s.quickReply ? { quickReply: true } : {}), ms: Math.round(ex.ms), bot: failure ? [] : normaliseReplies(body?.replies, ctx),
        ...(Object.keys(variables).length ? { variables } : {}), ...(failure ? { failure } : {}),
      });
    }
  }
  return {
    format: TRANSCRIPT_FORMAT,
    name: `connector check: ${run.steps.find((s) => s.kind === 'visitor')?.kind === 'visitor' ? (run.steps.find((s) => s.kind === 'visitor') as { text: string }).text : 'conversation'}`,
    recorded: { at: new Date().toISOString(), by: 'ces check connector', tool: `ces ${toolVersion()}` },
    connector: { url: withoutCredentials(settings.url) },
    bot: { idBot: run.setup.idBot, language: settings.language },
    website: { id: settings.website },
    turns,
  };
}

/**
 * Saves the check's conversation: into the run folder (shown as `transcripts.html`, linked from the landing page) and,
 * with `--record DIR`, into DIR. Never fails the check: a transcript that cannot be written is reported on stderr.
 */
export function saveCheckConversation(run: ConversationRun, settings: ConnectorCheckSettings): void {
  try {
    const t = transcriptFromCheck(run, settings);
    const runDir = process.env.CES_RUN_DIR;
    if (runDir) {
      const dir = path.join(runDir, 'transcripts');
      writeTranscript(t, dir);
      const items = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => ({ file: f, transcript: readTranscript(path.join(dir, f)) }));
      fs.writeFileSync(path.join(runDir, 'transcripts.html'), transcriptsPage(items, 'Conversations held by the connector check'));
    }
    const out = process.env[RECORD_ENV];
    if (out) console.log(`transcript recorded: ${writeTranscript(t, out)}`);
  } catch (e) {
    console.error(`could not save the conversation's transcript: ${(e as Error).message}`);
  }
}
