// `ces record URL --script S`: hold one conversation with a vendor's connector through the embedded reference service and save its transcript (issue 17, docs/transcripts.md).
import fs from 'node:fs';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';
import { newRunDir } from '../run.js';
import { buildLanding, writeRunSummary } from '../../lib/landing.js';
import { mask } from '../../lib/mask.js';
import { formatTranscript, TranscriptError, writeTranscript } from '../../transcripts/format.js';
import { parseRecordScript, recordConversation, writeTranscriptsPage } from '../../transcripts/run.js';
import { embeddedSession, preflightConnector } from '../../transcripts/session.js';
import { SetupError } from '../../transcripts/service.js';
import { validateConnectorUrl } from './replay.js';

interface Args { url: string; script: string; secret?: string; 'ca-file'?: string; 'allow-http': boolean; out: string; name?: string; bot?: string }

export const recordCommand: CommandModule<{}, Args> = {
  command: 'record <url>',
  describe: 'Hold one conversation with a bot connector from a script, through the reference service, and save its transcript',
  builder: (y) => y
    .positional('url', { type: 'string', demandOption: true, describe: 'Base URL of the bot connector (https://)' })
    .option('script', { type: 'string', demandOption: true, describe: 'Visitor script: JSON array of texts (inline or a file); "@quick-reply" clicks the first quick reply offered, "@quick-reply <value>" that one, "@wait 5m" stays silent (the service clock moves)' })
    .option('secret', { type: 'string', describe: 'The connector secret: every call is signed X-Service-Signature (G2), never written to the transcript' })
    .option('ca-file', { type: 'string', describe: 'PEM CA to trust for the connector (self-signed local servers); NODE_EXTRA_CA_CERTS also works' })
    .option('allow-http', { type: 'boolean', default: false, describe: 'Accept a plain-http connector URL (local development only)' })
    .option('out', { type: 'string', default: 'transcripts', describe: 'Transcript file (*.json) or folder (named after the conversation, never overwriting)' })
    .option('name', { type: 'string', describe: 'Name of the conversation (default: its first visitor text)' })
    .option('bot', { type: 'string', describe: 'Scenario (idBot) to bind the bot to (default: the first the connector lists)' })
    .example('$0 record https://localhost:9000 --secret "$SECRET" --script \'["Hello", "@quick-reply", "@wait 5m"]\'', 'record a greeting, a quick-reply click and the inactivity close'),
  handler: async (a) => {
    validateConnectorUrl(a.url, a['allow-http'], a['ca-file']);
    let inputs;
    try { inputs = parseRecordScript(a.script); } catch (e) { throw new UsageError((e as Error).message); }
    const first = inputs[0] as { visitor: string };
    const name = a.name ?? first.visitor.slice(0, 80);
    let session;
    try {
      // Pre-flight first: an unreachable or untrusted connector is one message, exit 2, before the service starts.
      await preflightConnector(a.url, a['ca-file']);
      console.log(`ces record: ${mask(a.url)}${a.secret ? '' : ' (no --secret: calls are signed with an empty key)'}; starting the reference service and setting up the bot…`);
      session = await embeddedSession({ connectorUrl: a.url, secret: a.secret, caFile: a['ca-file'], allowHttp: a['allow-http'] });
    } catch (e) { if (e instanceof SetupError) throw new UsageError(e.message); throw e; }
    try {
      const { transcript, notJudged } = await recordConversation(session, inputs, name, a.bot);
      const file = writeTranscript(transcript, a.out);
      console.log(mask(formatTranscript(transcript)));
      for (const n of notJudged) console.log(`note: ${n}`);
      const run = newRunDir('record');
      const dir = path.join(run.dir, 'transcripts');
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(file, path.join(dir, path.basename(file)));
      writeTranscriptsPage(dir, path.join(run.dir, 'transcripts.html'), `Recorded: ${name}`);
      writeRunSummary(run.dir, { id: run.id, kind: 'record', date: new Date().toISOString(), target: mask(a.url), reference: false, deviations: [], exitCode: 0, checks: [], verdicts: [] });
      buildLanding();
      console.log(`transcript: ${file} (${transcript.turns.length} turns)\nreport: ${path.join(run.dir, 'transcripts.html')}`);
    } catch (e) {
      if (e instanceof SetupError || e instanceof TranscriptError) throw new UsageError(e.message);
      throw e;
    } finally {
      await session.close();
    }
  },
};
