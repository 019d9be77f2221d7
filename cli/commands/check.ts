// `ces check connector|webhook-receiver URL`: judge a vendor's own bot connector or webhook receiver clause by clause with the connector-check / receiver-check suites (issue 6).
import fs from 'node:fs';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';
import { newRunDir, runPlaywright, finishRun } from '../run.js';
import { generateAllure } from '../allure.js';
import { addSecret, mask } from '../../lib/mask.js';
import { scrubDir } from '../../lib/results.js';
import type { Target } from '../../lib/target.js';
import { CHECK_ENV, parseScript } from '../../check/settings.js';
import { RECORD_ENV } from '../../transcripts/from-check.js';

type What = 'connector' | 'webhook-receiver';
interface Args {
  what: What; url: string; secret?: string; 'connector-version'?: string; website?: string; language?: string;
  'allow-http': boolean; strict: boolean; 'report-dir'?: string; 'ca-file'?: string; script?: string; workers?: number; allure: boolean; record?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROJECT: Record<What, string> = { connector: 'connector-check', 'webhook-receiver': 'receiver-check' };
const AREA: Record<What, string> = { connector: 'connector', 'webhook-receiver': 'receiver' };

/** Checks the arguments; an http:// URL is not a usage error (it is judged and reported as a MUST failure). */
export function validateCheckArgs(a: Pick<Args, 'what' | 'url' | 'connector-version' | 'language' | 'ca-file' | 'script'>): void {
  let u: URL;
  try { u = new URL(a.url); } catch { throw new UsageError(`URL ${JSON.stringify(a.url)} is not a valid absolute URL (expected https://host[:port][/path])`); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`URL ${a.url} must be an https:// URL (got ${u.protocol})`);
  if (a['connector-version'] !== undefined && !UUID.test(a['connector-version'])) throw new UsageError(`--connector-version must be a UUID (got ${a['connector-version']})`);
  if (a.language !== undefined && !/^[A-Za-z]{2}$/.test(a.language)) throw new UsageError(`--language must be a two-letter code (got ${a.language})`);
  if (a['ca-file'] !== undefined && !fs.existsSync(a['ca-file'])) throw new UsageError(`--ca-file ${a['ca-file']} does not exist`);
  if (a.script !== undefined) { try { parseScript(a.script); } catch (e) { throw new UsageError(`--script: ${(e as Error).message}`); } }
}

/** The target file of a check run: no service, only the checked URL (loadTarget's required fields get harmless placeholders). */
function checkTarget(what: What, url: string, caFile?: string): Target {
  return {
    base_url: url, rest_base_url: url, graphql_url: url, api_key: '-', api_keys: [], user: { username: '-', password: '-' }, capabilities: [],
    ...(caFile ? { ca_file: path.resolve(caFile) } : {}),
    ...(what === 'connector' ? { connector_url: url } : { sink_url: url }),
    reference: false,
  };
}

export const checkCommand: CommandModule<{}, Args> = {
  command: 'check <what> <url>',
  describe: 'Judge a vendor bot connector or webhook receiver clause by clause, as the service would treat it',
  builder: (y) => y
    .positional('what', { choices: ['connector', 'webhook-receiver'] as const, demandOption: true, describe: 'connector: play the service against a bot connector; webhook-receiver: send signed deliveries' })
    .positional('url', { type: 'string', demandOption: true, describe: 'Base URL of the connector, or the callback URL of the receiver (https://)' })
    .option('secret', { type: 'string', describe: 'Signing secret (connector secret, or the subscription secret): X-Service-Signature HMAC-SHA256 (G1/G2)' })
    .option('connector-version', { type: 'string', describe: 'connector: idConnectorVersion sent on every call (UUID; default: a new one)' })
    .option('website', { type: 'string', describe: 'connector: idWebsite sent on every call (default 1)' })
    .option('language', { type: 'string', describe: 'connector: two-letter language of the bot created (default en)' })
    .option('script', { type: 'string', describe: 'connector: visitor script, a JSON array of texts (inline or a file); "@quick-reply" clicks the first quick reply offered' })
    .option('allow-http', { type: 'boolean', default: false, describe: 'Check a plain-http URL during local development (CONN-HTTPS-01 / RECV-HTTPS-01 reported as SKIP)' })
    .option('strict', { type: 'boolean', default: false, describe: 'WARN fails the run (exit 1), as FAIL does' })
    .option('ca-file', { type: 'string', describe: 'PEM CA to trust for the URL (self-signed local servers); NODE_EXTRA_CA_CERTS also works' })
    .option('report-dir', { type: 'string', describe: 'Folder for this run\'s reports (default reports/<run-id>)' })
    .option('workers', { type: 'number', describe: 'Parallel Playwright workers (default 2)' })
    .option('allure', { type: 'boolean', default: true, describe: 'Generate the Allure HTML report' })
    .option('record', { type: 'string', describe: 'connector: also save the scripted conversation as a transcript in this folder (replay it with ces replay; docs/transcripts.md)' }),
  handler: async (a) => {
    validateCheckArgs(a);
    const what = a.what;
    addSecret(a.secret);
    let run: { id: string; dir: string };
    if (a['report-dir']) {
      const dir = path.resolve(a['report-dir']);
      fs.mkdirSync(dir, { recursive: true });
      run = { id: path.basename(dir), dir };
    } else run = newRunDir('check');
    const target = checkTarget(what, a.url, a['ca-file']);
    const targetFile = path.join(run.dir, 'check-target.json');
    fs.writeFileSync(targetFile, JSON.stringify(target, null, 2));
    // Every CES_CHECK_* variable is set (empty = default), so nothing leaks in from the caller's environment; secrets travel only here.
    const extraEnv: Record<string, string> = Object.fromEntries(Object.values(CHECK_ENV).map((k) => [k, '']));
    if (what === 'connector') {
      Object.assign(extraEnv, {
        [CHECK_ENV.connectorUrl]: a.url, [CHECK_ENV.connectorSecret]: a.secret ?? '', [CHECK_ENV.connectorVersion]: a['connector-version'] ?? '',
        [CHECK_ENV.website]: a.website ?? '', [CHECK_ENV.language]: a.language ?? '', [CHECK_ENV.script]: a.script ?? '',
      });
    } else Object.assign(extraEnv, { [CHECK_ENV.receiverUrl]: a.url, [CHECK_ENV.receiverSecret]: a.secret ?? '' });
    extraEnv[CHECK_ENV.allowHttp] = a['allow-http'] ? '1' : '';
    extraEnv[RECORD_ENV] = what === 'connector' && a.record ? path.resolve(a.record) : '';
    console.log(`ces check ${what}: ${mask(a.url)}${a.secret ? '' : ' (no --secret: calls are signed with an empty key)'}; reports in ${run.dir}`);
    const { checks } = await runPlaywright({ targetFile, runDir: run.dir, projects: [PROJECT[what]], workers: a.workers, extraEnv });
    if (checks.length === 0) throw new UsageError('no check ran: look at the Playwright output above (the suite failed to load)');
    if (a.allure) await generateAllure(run.dir, `CES check ${what} — ${run.id}`);
    scrubDir(run.dir);
    process.exitCode = finishRun(run, 'check', target, checks, {}, { area: AREA[what], strict: a.strict });
  },
};
