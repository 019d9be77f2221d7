// `ces replay FILE|DIR... --connector URL | --target F`: replay recorded conversations and report every change of the bot's answers (issue 17, docs/transcripts.md).
import fs from 'node:fs';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';
import { newRunDir, reportDirOf } from '../run.js';
import { mask } from '../../lib/mask.js';
import { loadTarget, TargetError } from '../../lib/target.js';
import { TranscriptError } from '../../transcripts/format.js';
import { loadTranscripts, replayTranscripts } from '../../transcripts/run.js';
import { embeddedSession, preflightConnector, targetSession, type Session } from '../../transcripts/session.js';
import { SetupError } from '../../transcripts/service.js';
import { transcriptFiles } from '../../transcripts/format.js';
import { finishRun } from '../run.js';
import { addSecret } from '../../lib/mask.js';

/** The files of format ces-transcript/2 among those given (a file that is not JSON is left to the format-1 reader to name). */
function sessionFiles(files: string[]): { sessions: string[]; others: string[] } {
  let all: string[];
  try { all = transcriptFiles(files); } catch (e) { if (e instanceof TranscriptError) throw new UsageError(e.message); throw e; }
  const isSession = (f: string) => { try { return JSON.parse(fs.readFileSync(f, 'utf8'))?.format === 'ces-transcript/2'; } catch { return false; } };
  return { sessions: all.filter(isSession), others: all.filter((f) => !isSession(f)) };
}

/** Replays session transcripts when the files are such (true), judged by the explorer's oracle and reported as `ces explore` reports. */
async function replaysSessions(a: Args): Promise<boolean> {
  const { sessions, others } = sessionFiles(a.files);
  if (!sessions.length) return false;
  if (others.length) throw new UsageError(`${sessions.length} of the files are session transcripts (ces-transcript/2, written by ces explore) and ${others.length} are not (e.g. ${others[0]}): replay them in separate runs`);
  if (!a.connector) throw new UsageError(`session transcripts (ces-transcript/2, written by ces explore) are replayed directly against a connector: give --connector URL (and --secret)`);
  if (a.update) throw new UsageError('--update accepts new answers of conversation transcripts (format 1); a session transcript (format 2) is judged by the spec, not compared');
  const { readSessions, replaySessions } = await import('../../explore/replay.js');
  const { explorerClient } = await import('../../explore/client.js');
  const { EXPLORE_CLAUSES } = await import('../../explore/oracle.js');
  const { checkTarget } = await import('./check.js');
  const { deleteBots } = await import('../../check/connector-client.js');
  let read;
  try { read = readSessions(sessions); } catch (e) { if (e instanceof TranscriptError) throw new UsageError(e.message); throw e; }
  addSecret(a.secret);
  try { await preflightConnector(a.connector, a['ca-file']); } catch (e) { if (e instanceof SetupError) throw new UsageError(e.message); throw e; }
  const run = a['report-dir'] ? reportDirOf(a['report-dir']) : newRunDir('replay');
  const client = explorerClient({ url: a.connector, secret: a.secret, caFile: a['ca-file'], allowHttp: a['allow-http'], rate: 0 });
  console.log(`ces replay: ${read.length} session transcript(s) against ${mask(a.connector)}, directly (no service); every call judged by the spec; reports in ${run.dir}`);
  const r = await replaySessions(client, read);
  console.log(r.lines.join('\n'));
  const left = await deleteBots(client, r.bots);
  if (left.length) console.log(`\nbots created by this replay: ${r.bots.length}; the connector did not remove ${left.length} on DELETE /bots/{idOperator} (remove them yourself): ${left.slice(0, 5).join(', ')}${left.length > 5 ? ', …' : ''}`);
  process.exitCode = finishRun(run, 'replay', checkTarget('connector', a.connector, a['ca-file']), r.checks, {}, { area: 'connector', checked: [...EXPLORE_CLAUSES], strict: a.strict });
  return true;
}

interface Args { files: string[]; connector?: string; target?: string; secret?: string; 'ca-file'?: string; 'allow-http': boolean; update: boolean; strict: boolean; 'report-dir'?: string }

/** A connector URL the service would call (https, or http with --allow-http) and a CA file that exists. */
export function validateConnectorUrl(url: string, allowHttp: boolean, caFile?: string): void {
  let u: URL;
  try { u = new URL(url); } catch { throw new UsageError(`URL ${JSON.stringify(url)} is not a valid absolute URL (expected https://host[:port][/path])`); }
  if (u.protocol !== 'https:' && !(allowHttp && u.protocol === 'http:')) throw new UsageError(`the connector URL must be https:// (got ${u.protocol}); add --allow-http for plain http during local development`);
  if (caFile !== undefined && !fs.existsSync(caFile)) throw new UsageError(`--ca-file ${caFile} does not exist`);
}

export const replayCommand: CommandModule<{}, Args> = {
  command: 'replay <files..>',
  describe: 'Replay recorded conversations against a bot connector (or a service target) and report every change',
  builder: (y) => y
    .positional('files', { type: 'string', array: true, demandOption: true, describe: 'Transcript files, or folders of *.json transcripts; session transcripts of ces explore (ces-transcript/2, several conversations) are played directly against --connector and judged by the spec' })
    .option('connector', { type: 'string', describe: 'Base URL of the bot connector: replayed through the embedded reference service (creation flow, first messages, signatures, timers)' })
    .option('target', { type: 'string', describe: 'A service target file (capability sim): replays through its simulation API, each conversation on its recorded website' })
    .option('secret', { type: 'string', describe: '--connector: the connector secret (X-Service-Signature, G2)' })
    .option('ca-file', { type: 'string', describe: '--connector: PEM CA to trust for the connector; NODE_EXTRA_CA_CERTS also works' })
    .option('allow-http', { type: 'boolean', default: false, describe: '--connector: accept a plain-http URL (local development only)' })
    .option('update', { type: 'boolean', default: false, describe: 'After showing the diff, accept today\'s answers as the new recording (hand-written expectations that still hold are kept)' })
    .option('strict', { type: 'boolean', default: false, describe: 'A WARN (an answer slower than recorded beyond max(500 ms, 50 %), a changed await) fails the run too' })
    .option('report-dir', { type: 'string', describe: 'Folder for this run\'s reports (default reports/<run-id>): replay.html, junit.xml, summary.json; new or empty, or a former run\'s, whose reports are removed first' })
    .check((a) => {
      if (!a.connector === !a.target) throw new UsageError('give exactly one of --connector URL (a bot connector) or --target F (a service target)');
      if (a.target && (a.secret || a['ca-file'])) throw new UsageError('--secret and --ca-file apply to --connector (a target file holds its own ca_file)');
      return true;
    })
    .example('$0 replay transcripts/ --connector https://localhost:9000 --secret "$SECRET"', 'replay every transcript of the folder; exit 1 when a conversation changed')
    .example('$0 replay transcripts/ --target staging.json', 'check that a service release carries the recorded conversations the same way'),
  handler: async (a) => {
    if (a.connector) validateConnectorUrl(a.connector, a['allow-http'], a['ca-file']);
    // Session transcripts (format 2, written by ces explore) are played directly against the connector, not through the service.
    if (await replaysSessions(a)) return;
    try { loadTranscripts(a.files); } catch (e) { if (e instanceof TranscriptError) throw new UsageError(e.message); throw e; }
    // The folder is settled (or refused) before the service starts: a refused --report-dir starts nothing.
    const run = a['report-dir'] ? reportDirOf(a['report-dir']) : newRunDir('replay');
    let session: Session;
    try {
      if (a.target) {
        let target;
        try { target = loadTarget(a.target); } catch (e) { if (e instanceof TargetError) throw new UsageError(e.message); throw e; }
        session = targetSession(target);
      } else {
        // Pre-flight first: an unreachable or untrusted connector is one message, exit 2, before the service starts.
        await preflightConnector(a.connector!, a['ca-file']);
        console.log(`ces replay: ${mask(a.connector!)}${a.secret ? '' : ' (no --secret: calls are signed with an empty key)'}; starting the reference service and setting up the bot…`);
        session = await embeddedSession({ connectorUrl: a.connector!, secret: a.secret, caFile: a['ca-file'], allowHttp: a['allow-http'] });
      }
    } catch (e) { if (e instanceof SetupError) throw new UsageError(e.message); throw e; }
    try {
      const { code } = await replayTranscripts(session, { files: a.files, update: a.update, strict: a.strict, runDir: run.dir, runId: run.id, against: session.describe });
      process.exitCode = code;
    } catch (e) {
      if (e instanceof SetupError || e instanceof TranscriptError) throw new UsageError(e.message);
      throw e;
    } finally {
      await session.close();
    }
  },
};
