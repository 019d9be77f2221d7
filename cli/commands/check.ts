// `ces check connector|webhook-receiver URL`: judge a vendor's own bot connector or webhook receiver clause by clause with the connector-check / receiver-check suites (issue 6).
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError, commaList } from '../usage.js';
import { newRunDir, reportDirOf, runPlaywright, finishRun, finishWritten, MASKED_BY_RUN } from '../run.js';
import { ALLURE_REPORT, generateAllure } from '../allure.js';
import { addSecret, mask } from '../../lib/mask.js';
import type { Target } from '../../lib/target.js';
import { clauseGrep } from '../selftest-plan.js';
import { loadClauses } from '../../lib/catalogue.js';
import { RECORD_ENV } from '../../transcripts/from-check.js';
import { CHECK_ENV, DEFAULT_CONVERSATIONS, parseScript } from '../../check/settings.js';
import { preflight } from '../../check/preflight.js';
import { botsCreated, partnerDown } from '../../check/partner.js';
import { ConnectorClient, deleteBots } from '../../check/connector-client.js';
import { ownOperatorNotice, playedConversations } from '../../check/conversation.js';
import { agentFor, http } from '../../lib/http.js';

type What = 'connector' | 'webhook-receiver';
interface Args {
  what: What; url: string; secret?: string; 'connector-version'?: string; website?: string; language?: string;
  'allow-http': boolean; strict: boolean; unsigned: boolean; keep: boolean; conversations: number; 'report-dir'?: string; 'ca-file'?: string; script?: string; workers?: number; allure: boolean; record?: string; only?: string;
  verbose: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROJECT: Record<What, string> = { connector: 'connector-check', 'webhook-receiver': 'receiver-check' };
const AREA: Record<What, string> = { connector: 'connector', 'webhook-receiver': 'receiver' };

/** Checks the arguments; an http:// URL is not a usage error (it is judged and reported as a MUST failure). */
export function validateCheckArgs(a: Pick<Args, 'what' | 'url' | 'connector-version' | 'language' | 'ca-file' | 'script'> & Partial<Pick<Args, 'secret' | 'unsigned' | 'conversations'>>): void {
  let u: URL;
  try { u = new URL(a.url); } catch { throw new UsageError(`URL ${JSON.stringify(a.url)} is not a valid absolute URL (expected https://host[:port][/path])`); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`URL ${a.url} must be an https:// URL (got ${u.protocol})`);
  if (a['connector-version'] !== undefined && !UUID.test(a['connector-version'])) throw new UsageError(`--connector-version must be a UUID (got ${a['connector-version']})`);
  if (a.language !== undefined && !/^[A-Za-z]{2}$/.test(a.language)) throw new UsageError(`--language must be a two-letter code (got ${a.language})`);
  if (a['ca-file'] !== undefined && !fs.existsSync(a['ca-file'])) throw new UsageError(`--ca-file ${a['ca-file']} does not exist`);
  if (a.script !== undefined) { try { parseScript(a.script); } catch (e) { throw new UsageError(`--script: ${(e as Error).message}`); } }
  if (a.conversations !== undefined && !(Number.isInteger(a.conversations) && a.conversations >= 1 && a.conversations <= 20)) throw new UsageError(`--conversations must be an integer from 1 to 20 (got ${a.conversations})`);
  if (!a.unsigned && (a.secret === undefined || a.secret === '')) {
    throw new UsageError(`--secret is ${a.secret === undefined ? 'missing' : 'empty'}: give the ${a.what === 'connector' ? "connector's" : "subscription's"} signing secret (--secret S, e.g. --secret "$CES_SECRET"), or --unsigned to check ${a.what === 'connector' ? 'a connector' : 'a receiver'} under development that verifies no signature`);
  }
}

/** The target file of a check run: no service, only the checked URL (loadTarget's required fields get harmless placeholders). */
export function checkTarget(what: What, url: string, caFile?: string): Target {
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
    .option('unsigned', { type: 'boolean', default: false, describe: 'Send unsigned calls (a partner under development without --secret); the signature clauses are reported SKIP and the verdict says so' })
    .option('keep', { type: 'boolean', default: false, describe: 'connector: keep the bots the run created (default: DELETE /bots/{idOperator} each at the end, where the connector allows it)' })
    .option('conversations', { type: 'number', default: DEFAULT_CONVERSATIONS, describe: 'connector: conversations held at once by the concurrency check (G28); 1 reports that clause NOT JUDGED (a bot that answers at random)' })
    .option('only', { type: 'string', describe: 'Comma list of clause ids (or the option repeated): run only their checks (the re-run command a timing or concurrency failure prints)' })
    .option('ca-file', { type: 'string', describe: 'PEM CA to trust for the URL (self-signed local servers); NODE_EXTRA_CA_CERTS also works' })
    .option('report-dir', { type: 'string', describe: 'Folder for this run\'s reports (default reports/<run-id>): new or empty, or a former run\'s, whose reports are removed first; a folder of other files is refused' })
    .option('workers', { type: 'number', describe: 'Parallel Playwright workers (default 2)' })
    .option('allure', { type: 'boolean', default: true, describe: 'Allure results and their HTML report (--no-allure: neither, a faster run)' })
    .option('record', { type: 'string', describe: 'connector: also save the scripted conversation as a transcript in this folder (replay it with ces replay; docs/transcripts.md)' })
    .option('verbose', { type: 'boolean', default: false, describe: 'Show Playwright\'s own progress lines and failure details while the checks run (the verdict table follows either way)' }),
  handler: async (a) => {
    validateCheckArgs(a);
    const what = a.what;
    const only = commaList(a.only);
    const unknown = only.filter((id) => !loadClauses().some((c) => c.id === id && c.area === AREA[what]));
    if (unknown.length) throw new UsageError(`--only: ${unknown.join(', ')} ${unknown.length > 1 ? 'are not clauses' : 'is not a clause'} of ${AREA[what]} (see fixtures/clauses/${AREA[what]}.json)`);
    addSecret(a.secret);
    // Pre-flight: one connection before any check; an unreachable URL or an untrusted certificate is one message, exit 2.
    // (A plain-http URL without --allow-http is not called at all: CONN-HTTPS-01 / RECV-HTTPS-01 judge it.)
    if (a.url.startsWith('https://') || a['allow-http']) {
      const pf = await preflight(a.url, a['ca-file']);
      if (!pf.ok) throw new UsageError(`pre-flight of ${mask(a.url)} failed, nothing was judged: ${pf.message}`);
    }
    const run = a['report-dir'] ? reportDirOf(a['report-dir']) : newRunDir('check');
    const target = checkTarget(what, a.url, a['ca-file']);
    const targetFile = path.join(run.dir, 'check-target.json');
    fs.writeFileSync(targetFile, JSON.stringify(target, null, 2));
    // One idConnectorVersion for the whole run: the one given, or one generated here and printed.
    const connectorVersion = a['connector-version'] ?? randomUUID();
    // Every CES_CHECK_* variable is set (empty = default), so nothing leaks in from the caller's environment; secrets travel only here.
    const extraEnv: Record<string, string> = Object.fromEntries(Object.values(CHECK_ENV).map((k) => [k, '']));
    if (what === 'connector') {
      Object.assign(extraEnv, {
        [CHECK_ENV.connectorUrl]: a.url, [CHECK_ENV.connectorSecret]: a.secret ?? '', [CHECK_ENV.connectorVersion]: connectorVersion,
        // A script file by its absolute path: the checks run from another folder, and re-run commands work from any folder.
        [CHECK_ENV.website]: a.website ?? '', [CHECK_ENV.language]: a.language ?? '', [CHECK_ENV.script]: a.script === undefined ? '' : a.script.trim().startsWith('[') ? a.script : path.resolve(a.script),
        [CHECK_ENV.conversations]: String(a.conversations),
      });
    } else Object.assign(extraEnv, { [CHECK_ENV.receiverUrl]: a.url, [CHECK_ENV.receiverSecret]: a.secret ?? '' });
    extraEnv[CHECK_ENV.allowHttp] = a['allow-http'] ? '1' : '';
    extraEnv[RECORD_ENV] = what === 'connector' && a.record ? path.resolve(a.record) : '';
    extraEnv[CHECK_ENV.unsigned] = a.unsigned ? '1' : '';
    extraEnv[CHECK_ENV.caFile] = a['ca-file'] ? path.resolve(a['ca-file']) : '';
    // Only re-run commands read these: they carry the run's --strict and write their reports beside its --report-dir.
    extraEnv[CHECK_ENV.strict] = a.strict ? '1' : '';
    extraEnv[CHECK_ENV.reportDir] = a['report-dir'] ? run.dir : '';
    console.log(`ces check ${what}: ${mask(a.url)}${what === 'connector' ? `; idConnectorVersion ${connectorVersion}` : ''}${a.unsigned ? '; UNSIGNED calls (--unsigned: the signature clauses are not judged)' : ''}; reports in ${run.dir}`);
    // Playwright's own lines (progress, ✘ on a NOTE, stack frames) speak another vocabulary: quiet unless --verbose.
    const { checks } = await runPlaywright({ targetFile, runDir: run.dir, projects: [PROJECT[what]], workers: a.workers, extraEnv, grep: only.length ? clauseGrep(only) : undefined, quiet: !a.verbose, allure: a.allure });
    if (checks.length === 0) throw new UsageError(`no check ran: the suite failed to load${a.verbose ? ' (see the Playwright output above)' : '; run again with --verbose to see why'}`);
    if (what === 'connector') await removeBots(run.dir, a, connectorVersion);
    // Said once, at the top of the report (G36), rather than in every check's reason.
    const ownOperator = what === 'connector' ? ownOperatorNotice(playedConversations(run.dir)) : undefined;
    if (ownOperator) console.log(`\n${ownOperator}`);
    // Allure's report is generated by a child process while this one writes the others.
    const allure = a.allure ? generateAllure(run.dir, checks, { reportName: `CES check ${what} — ${run.id}` }) : undefined;
    const writing = allure ? [ALLURE_REPORT] : [];
    const down = partnerDown(run.dir);
    const stopped = down ? `the ${what === 'connector' ? 'connector' : 'receiver'} stopped answering at ${down.since} (${down.cause}); the checks after it are NOT JUDGED` : undefined;
    // Coverage counts the clauses of what was checked: the area's, or those --only named.
    const checked = loadClauses().filter((c) => c.area === AREA[what] && !c.retired && (!only.length || only.includes(c.id))).map((c) => c.id);
    process.exitCode = finishRun(run, 'check', target, checks, {}, { area: AREA[what], strict: a.strict, stopped, checked, writing, masked: MASKED_BY_RUN, qualifier: a.unsigned ? 'unsigned calls (--unsigned): the signature clauses were not judged' : undefined });
    if (allure && (await allure)) finishWritten(run, ALLURE_REPORT);
  },
};

/** Removes the bots the run created (DELETE /bots/{idOperator}, signed as G2 says) unless --keep; says what it did. */
async function removeBots(runDir: string, a: Args, connectorVersion: string): Promise<void> {
  const bots = botsCreated(runDir);
  if (!bots.length) return;
  if (a.keep) { console.log(`bots created by this run, kept (--keep): ${bots.join(', ')}`); return; }
  const agent = agentFor(a['ca-file'] ? path.resolve(a['ca-file']) : undefined);
  const client = new ConnectorClient({
    url: a.url.replace(/\/+$/, ''), secret: a.secret ?? '', connectorVersion, website: a.website ?? '1', language: a.language ?? 'en',
    allowHttp: a['allow-http'], unsigned: a.unsigned, script: [], conversations: 1, origin: 'ces check',
  }, (req) => http(req, agent));
  const left = await deleteBots(client, bots);
  console.log(left.length
    ? `bots created by this run: ${bots.length}; the connector did not remove ${left.length} on DELETE /bots/{idOperator} (the contract has no deletion endpoint; remove them yourself): ${left.join(', ')}`
    : `bots created by this run: ${bots.length}, removed (DELETE /bots/{idOperator}); --keep keeps them`);
}
