// `ces replay --connector` of session transcripts (ces-transcript/2): each session played directly against the connector on a new bot, every call judged again by the explorer's oracle, reported as `ces explore` reports.
import fs from 'node:fs';
import type { ConnectorClient } from '../check/connector-client.js';
import type { CheckResult } from '../lib/results.js';
import { firstScenario, playSession } from './run.js';
import { clauseChecks, type ClauseFailure } from './report.js';
import { numbered, parseSession, stepsOf, type SessionTranscript } from './transcript.js';

/** Reads session transcripts (format 2); errors name the file and what is accepted. */
export const readSessions = (files: string[]): Array<{ file: string; t: SessionTranscript }> => files.map((file) => ({ file, t: parseSession(fs.readFileSync(file, 'utf8'), file) }));

export interface SessionReplay { checks: CheckResult[]; lines: string[]; bots: string[] }

/** Plays each session as recorded (the texts, clicks and echoes it holds) and judges every call; the bot runs the recorded scenario. */
export async function replaySessions(client: ConnectorClient, sessions: Array<{ file: string; t: SessionTranscript }>): Promise<SessionReplay> {
  const bots: string[] = [];
  const judged: Record<string, number> = {};
  const failed: ClauseFailure[] = [];
  const lines: string[] = [];
  let fallback: string | undefined;
  for (const { file, t } of sessions) {
    const idBot = t.bot.idBot ?? (fallback ??= (await firstScenario(client)).idBot);
    const session = await playSession(client, idBot, stepsOf(t), bots);
    for (const [k, n] of session.judged()) judged[k] = (judged[k] ?? 0) + n;
    const shown = numbered(session.records);
    const findings = session.findings;
    lines.push('', `${file}: ${t.name} (${t.turns.length} turns${t.failure ? `; recorded failing ${t.failure.clause}` : ''})`, ...shown.map((l) => `  ${l}`),
      `  ${findings.length ? `fails ${[...new Set(findings.map((f) => f.clause))].join(', ')} today` : t.failure ? `no longer fails ${t.failure.clause}: every call conforms today` : 'every call conforms'}`);
    for (const f of findings) failed.push({ clause: f.clause, reason: `${f.message} (replaying ${file})`, reproduction: shown.join('\n') });
  }
  return { checks: clauseChecks(judged, failed, [], `no call of the replayed sessions gave evidence for this clause`), lines, bots };
}
