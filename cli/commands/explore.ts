// `ces explore connector URL`: random conversations against a vendor's bot connector (fast-check model-based testing), the spec as the oracle, each failure shrunk to the shortest session and written as a transcript `ces replay --connector` replays (issue 41).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';
import { finishRun, newRunDir, reportDirOf } from '../run.js';
import { addSecret, mask } from '../../lib/mask.js';
import { checkTarget, validateCheckArgs } from './check.js';
import { DEFAULT_LANGUAGE, DEFAULT_WEBSITE } from '../../check/settings.js';

interface Args {
  what: 'connector'; url: string; secret?: string; 'ca-file'?: string; 'allow-http': boolean; unsigned: boolean; budget: string; 'shrink-budget': string; seed?: number;
  parallel: number; rate: number; 'max-text'?: number; 'connector-version'?: string; website?: string; language?: string; keep: boolean; 'report-dir'?: string;
  'stop-after'?: number;
}

export const DEFAULTS = { budget: '60s', shrinkBudget: '30s', parallel: 4, rate: 50 } as const;

/** Checks the explorer's own options (the URL, secret, CA file and language as `ces check` checks them). */
export function validateExploreArgs(a: Pick<Args, 'url' | 'secret' | 'ca-file' | 'allow-http' | 'parallel' | 'rate' | 'seed' | 'connector-version' | 'language'> & Partial<Pick<Args, 'unsigned' | 'stop-after'>> & { 'max-text': number }, maxText: { min: number; max: number }): void {
  validateCheckArgs({ what: 'connector', url: a.url, secret: a.secret, unsigned: a.unsigned, 'ca-file': a['ca-file'], 'connector-version': a['connector-version'], language: a.language, script: undefined });
  if (a.url.startsWith('http:') && !a['allow-http']) throw new UsageError(`URL ${a.url} is plain http: the service calls connectors over HTTPS only; add --allow-http to explore one during local development`);
  if (!(Number.isInteger(a.parallel) && a.parallel >= 1 && a.parallel <= 16)) throw new UsageError(`--parallel must be an integer from 1 to 16 (got ${a.parallel})`);
  if (!(Number.isFinite(a.rate) && a.rate >= 0 && a.rate <= 10_000)) throw new UsageError(`--rate must be a number of calls per second from 0 (no limit) to 10000 (got ${a.rate})`);
  if (!(Number.isInteger(a['max-text']) && a['max-text'] >= maxText.min && a['max-text'] <= maxText.max)) throw new UsageError(`--max-text must be an integer from ${maxText.min} to ${maxText.max} characters (got ${a['max-text']})`);
  if (a.seed !== undefined && !(Number.isInteger(a.seed) && Math.abs(a.seed) < 2 ** 31)) throw new UsageError(`--seed must be an integer between -2147483647 and 2147483647 (got ${a.seed})`);
  if (a['stop-after'] !== undefined && !(Number.isInteger(a['stop-after']) && a['stop-after'] >= 1)) throw new UsageError(`--stop-after must be a whole number of failures, 1 or more (got ${a['stop-after']})`);
}

export const exploreCommand: CommandModule<{}, Args> = {
  command: 'explore <what> <url>',
  describe: "Random conversations against a bot connector, judged by the spec; each failure shrunk to the shortest session and written as a transcript `ces replay --connector` replays",
  builder: (y) => y
    .positional('what', { choices: ['connector'] as const, demandOption: true, describe: 'connector: play the service against a bot connector' })
    .positional('url', { type: 'string', demandOption: true, describe: 'Base URL of the connector (https://)' })
    .option('secret', { type: 'string', describe: "The connector's signing secret: every call carries X-Service-Signature (HMAC-SHA256, G2)" })
    .option('ca-file', { type: 'string', describe: 'PEM CA to trust for the URL (self-signed local servers); NODE_EXTRA_CA_CERTS also works' })
    .option('allow-http', { type: 'boolean', default: false, describe: 'Explore a plain-http URL during local development' })
    .option('unsigned', { type: 'boolean', default: false, describe: 'Send unsigned calls (a connector under development without --secret); a refusal is then no evidence for any clause' })
    .option('budget', { type: 'string', default: DEFAULTS.budget, describe: 'Time spent generating sessions (60s, 2m, 500ms); shrinking and replaying a failure have their own budget' })
    .option('shrink-budget', { type: 'string', default: DEFAULTS.shrinkBudget, describe: "Time spent shrinking each failure; at its end the calls in flight are cancelled and the smallest failing session found so far is reported" })
    .option('seed', { type: 'number', describe: 'Seed of the run (printed): the same seed generates the same sessions and texts (faker is seeded from fast-check); default: random' })
    .option('parallel', { type: 'number', default: DEFAULTS.parallel, describe: 'Conversations sent a visitor message at once, at most (1-16): one step awaiting them together' })
    .option('rate', { type: 'number', default: DEFAULTS.rate, describe: 'Calls per second at most, over the whole run (0: no limit)' })
    .option('max-text', { type: 'number', describe: 'Longest visitor text generated, in characters (default 1000)' })
    .option('connector-version', { type: 'string', describe: 'idConnectorVersion sent on every call (UUID; default: a new one, printed)' })
    .option('website', { type: 'string', describe: `idWebsite sent on every call (default ${DEFAULT_WEBSITE})` })
    .option('language', { type: 'string', describe: `Two-letter language of the bots created (default ${DEFAULT_LANGUAGE})` })
    .option('keep', { type: 'boolean', default: false, describe: 'Keep the bots the run created (default: DELETE /bots/{idOperator} each at the end, where the connector allows it)' })
    .option('report-dir', { type: 'string', describe: "Folder for this run's reports and session transcripts (default reports/<run-id>): new or empty, or a former run's, whose reports are removed first" })
    .option('stop-after', { type: 'number', describe: 'Stop exploring after this many failures (each shrunk and replayed first); default: explore for the whole budget' })
    .epilogue([
      'Sessions are generated with fast-check\'s model-based testing: conversations opened as the service opens them (endpoint 5, endpoint 6 with',
      'the first messages as history, endpoint 7 with the first visitor text), visitor texts (words, any Unicode, emoji, whitespace only, long texts;',
      'each conversation\'s texts carry a token of their own), phrases the bot said, clicks on quick replies it offered, echoes of its messages and',
      'other operator messages (role operator), endpoint-4 polls, and visitor messages to several conversations at once. Every answer is judged',
      'under its clause (docs/explore.md lists them); a clause no call exercised is NOT JUDGED. Each failure is shrunk to the shortest session',
      'that still fails, replayed three times (one that does not fail every time is a NOTE, flaky), printed as a numbered transcript and written as',
      'a ces-transcript/2 file in the run folder. Exit codes: 0 no failure; 1 a failure (FAIL under a MUST clause); 2 usage, pre-flight or harness error.',
    ].join(' '))
    .example('$0 explore connector https://localhost:9000 --secret "$CES_SECRET" --budget 2m --seed 7', 'two minutes of random conversations, reproducible with --seed 7'),
  handler: async (a) => {
    // Heavy parts load here: `ces explore --help` stays quick.
    const { DEFAULT_MAX_TEXT, MAX_TEXT_RANGE } = await import('../../explore/texts.js');
    const maxText = a['max-text'] ?? DEFAULT_MAX_TEXT;
    validateExploreArgs({ ...a, 'max-text': maxText }, MAX_TEXT_RANGE);
    const { parseBudget } = await import('./fuzz.js');
    const budgetMs = parseBudget(a.budget);
    let shrinkBudgetMs: number;
    try { shrinkBudgetMs = parseBudget(a['shrink-budget']); } catch (e) { throw new UsageError((e as Error).message.replace('--budget', '--shrink-budget')); }
    addSecret(a.secret);
    const { preflight } = await import('../../check/preflight.js');
    const pf = await preflight(a.url, a['ca-file']);
    if (!pf.ok) throw new UsageError(`pre-flight of ${mask(a.url)} failed, nothing was explored: ${pf.message}`);
    const { deleteBots } = await import('../../check/connector-client.js');
    const { explore } = await import('../../explore/run.js');
    const { explorerClient } = await import('../../explore/client.js');
    const { sessionTranscript, writeSession } = await import('../../explore/transcript.js');
    const { exploreChecks, summaryLines } = await import('../../explore/report.js');
    const { EXPLORE_CLAUSES } = await import('../../explore/oracle.js');
    const run = a['report-dir'] ? reportDirOf(a['report-dir']) : newRunDir('explore');
    const seed = a.seed ?? Math.floor(Math.random() * 2 ** 31);
    const connectorVersion = a['connector-version'] ?? randomUUID();
    const website = a.website ?? DEFAULT_WEBSITE;
    const client = explorerClient({ url: a.url, secret: a.secret, caFile: a['ca-file'], allowHttp: a['allow-http'], unsigned: a.unsigned, rate: a.rate, connectorVersion, website, language: a.language, parallel: a.parallel });
    console.log(`ces explore connector: ${mask(a.url)}; idConnectorVersion ${connectorVersion}; seed ${seed}; budget ${budgetMs / 1000} s (+${shrinkBudgetMs / 1000} s per failure to shrink it); at most ${a.parallel} conversations at once and ${a.rate || 'unlimited'} calls/s${a.unsigned ? '; UNSIGNED calls (--unsigned)' : ''}; reports in ${run.dir}`);
    const stillThere = async () => { const again = await preflight(a.url, a['ca-file']); return again.ok ? undefined : again.message; };
    const result = await explore({ client, budgetMs, shrinkBudgetMs, seed, parallel: a.parallel, maxText, stillThere, log: (l) => console.log(l), ...(a['stop-after'] ? { stopAfterFailures: a['stop-after'] } : {}) });
    const { toolVersion } = await import('../../lib/landing.js');
    const tool = `ces ${toolVersion()}`;
    const written = result.failures.map((failure, i) => {
      const file = path.join(run.dir, 'sessions', `${String(i + 1).padStart(2, '0')}-${failure.finding.clause.toLowerCase()}.json`);
      writeSession(sessionTranscript(failure.records, { name: `explore seed ${seed}: ${failure.finding.clause}`, by: 'ces explore connector', tool, url: mask(a.url), idBot: result.idBot, website, finding: failure.finding }), file);
      const replay = `npx ces replay ${file} --connector ${mask(a.url)} --secret "$CES_SECRET"${a['ca-file'] ? ` --ca-file ${path.resolve(a['ca-file'])}` : ''}${a['allow-http'] ? ' --allow-http' : ''}`;
      return { failure, file, replay };
    });
    console.log(`\n${summaryLines(result, written).join('\n')}`);
    // Best effort: the contract has no deletion; what could not be removed is named (the first ones, the count of all).
    if (result.bots.length && !result.lost) {
      if (a.keep) console.log(`\nbots created by this run, kept (--keep): ${result.bots.length}`);
      else {
        const left = await deleteBots(client, result.bots);
        console.log(left.length
          ? `\nbots created by this run: ${result.bots.length}; the connector did not remove ${left.length} on DELETE /bots/{idOperator} (the contract has no deletion endpoint; remove them yourself): ${left.slice(0, 5).join(', ')}${left.length > 5 ? `, and ${left.length - 5} more (all in ${path.join(run.dir, 'bots-left.txt')})` : ''}`
          : `\nbots created by this run: ${result.bots.length}, removed (DELETE /bots/{idOperator}); --keep keeps them`);
        if (left.length) fs.writeFileSync(path.join(run.dir, 'bots-left.txt'), `${left.join('\n')}\n`);
      }
    }
    const target = checkTarget('connector', a.url, a['ca-file']);
    const stopped = result.lost ? `the connector stopped answering at ${result.lost.since} (${result.lost.cause}); the run stopped there` : undefined;
    process.exitCode = finishRun(run, 'explore', target, exploreChecks(result, written), {}, { area: 'connector', checked: [...EXPLORE_CLAUSES], stopped, qualifier: a.unsigned ? 'unsigned calls (--unsigned)' : undefined });
  },
};
