// `ces fuzz`: property-based requests generated from a target's OpenAPI document and GraphQL schema; every answer judged, every
// failure shrunk to a minimal request and printed as a curl reproduction; reports in reports/<run-id>/ like any run.
import fs from 'node:fs';
import type { CommandModule } from 'yargs';
import { newRunDir, registerTargetSecrets } from '../run.js';
import { resolveTarget } from '../embedded.js';
import { UsageError } from '../usage.js';
import { addSecret, knownSecrets } from '../../lib/mask.js';
import { buildLanding, writeRunSummary } from '../../lib/landing.js';
import { findLeaks, scrubDir, type CheckResult } from '../../lib/results.js';
import { credentialsOf, FLOOR_PER_OPERATION, FuzzSetupError, runFuzz } from '../../fuzz/run.js';
import { printFuzzSummary, writeFuzzReports } from '../../fuzz/report.js';

interface Args { target?: string; openapi?: string; budget: string; seed?: number; floor: number; only?: string; 'read-only': boolean; deviate: string[] }

/** `60s`, `2m`, `500ms` or a number of seconds, in ms. */
export function parseBudget(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--budget must look like 60s, 2m or 500ms (got ${JSON.stringify(text)})`);
  const n = Number(m[1]);
  return Math.round(m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000);
}

export const fuzzCommand: CommandModule<{}, Args> = {
  command: 'fuzz',
  describe: 'Generated requests from the target\'s OpenAPI document and GraphQL schema; each failure shrunk to a minimal curl reproduction',
  builder: (y) => y
    .option('target', { type: 'string', describe: 'Target file (JSON); default: the embedded reference implementation, started in a worker thread of this process (its event loop is measured)' })
    .option('openapi', { type: 'string', describe: 'OpenAPI 3.1 document (file) to use instead of {rest_base_url}/openapi.json' })
    .option('budget', { type: 'string', default: '60s', describe: 'Time to spend once every operation has its floor of cases (60s, 2m, 500ms)' })
    .option('seed', { type: 'number', describe: 'Seed of the generators (printed; the same seed replays the same cases); default: random' })
    .option('floor', { type: 'number', default: FLOOR_PER_OPERATION, describe: 'Cases every operation gets at least, even past the budget' })
    .option('only', { type: 'string', describe: 'Only operations whose id matches this regular expression (e.g. "REST GET /operator", "GraphQL")' })
    .option('read-only', { type: 'boolean', default: false, describe: 'Skip REST POST/PUT/PATCH/DELETE and GraphQL mutations (for targets with data to keep)' })
    .option('deviate', { type: 'string', array: true, default: [] as string[], describe: 'Embedded target only: switch on a deviation (repeatable), to see what the fuzzer finds' })
    .epilogue([
      'Every answer is checked: an answer at all and no 5xx; the status and the body as the OpenAPI document or the GraphQL schema say;',
      'invalid input refused; credentials required (401/403, GraphQL 401 per G15) and valid ones accepted; no id another client owns',
      '(ids each client can list are collected first, with the target\'s second API key and login); no SQL text, stack trace or',
      'source path in any answer; each answer within the time limit of lib/limits.ts. Mutating operations run unless --read-only.',
      'Exit codes: 0 no failure; 1 a failure was found (each printed as a curl command, keys as $CES_API_KEY); 2 usage or set-up error.',
    ].join(' ')),
  handler: async (a) => {
    const budgetMs = parseBudget(a.budget);
    if (!Number.isInteger(a.floor) || a.floor < 1) throw new UsageError(`--floor must be a positive integer (got ${a.floor})`);
    let only: RegExp | undefined;
    if (Array.isArray(a.only)) throw new UsageError(`--only given ${a.only.length} times; give one regular expression (alternatives joined with |, e.g. "GraphQL|REST GET")`);
    if (a.only) { try { only = new RegExp(a.only); } catch (e) { throw new UsageError(`--only is not a valid regular expression: ${(e as Error).message}`); } }
    if (a.openapi && !fs.existsSync(a.openapi)) throw new UsageError(`--openapi: no file ${a.openapi}`);
    const seed = a.seed ?? Math.floor(Math.random() * 2 ** 31);
    if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer (got ${a.seed})`);
    const run = newRunDir('fuzz');
    const resolved = await resolveTarget({ target: a.target, deviate: a.deviate, runDir: run.dir });
    const embedded = !!resolved.stack;
    let code: number;
    try {
      registerTargetSecrets(resolved.target);
      console.log(`ces fuzz: target ${resolved.target.base_url}${embedded ? ' (embedded reference implementation)' : ''}; seed ${seed}; budget ${budgetMs / 1000} s after a floor of ${a.floor} cases per operation; reports in ${run.dir}`);
      let credentials;
      try {
        credentials = await credentialsOf(resolved.target);
      } catch (e) {
        throw new UsageError(`cannot log in to the target: ${(e as Error).message}`);
      }
      for (const t of credentials.tokens) addSecret(t);
      let report;
      try {
        report = await runFuzz({ target: resolved.target, budgetMs, seed, floor: a.floor, openapiFile: a.openapi, only, readOnly: a['read-only'], credentials, serviceLoop: resolved.stack?.eventLoop, log: (l) => console.log(l) });
      } catch (e) {
        if (e instanceof FuzzSetupError) throw new UsageError(e.message);
        throw e;
      }
      const files = writeFuzzReports(run.dir, report, resolved.target, embedded);
      code = report.failures.length ? 1 : 0;
      const checks: CheckResult[] = report.operations.map((o) => {
        const f = report.failures.filter((x) => x.operation === o.id);
        return { title: `fuzz: ${o.id} (${o.cases} cases)`, file: 'fuzz/run.ts', project: 'fuzz', clauses: [], outcome: f.length ? 'failed' : 'passed', reason: f.map((x) => `${x.oracle}: ${x.message}`).join('\n') || undefined, durationMs: 0 };
      });
      writeRunSummary(run.dir, {
        id: run.id, kind: 'fuzz', date: new Date().toISOString(), target: resolved.target.base_url, reference: resolved.target.reference === true,
        deviations: resolved.target.deviations ?? [], exitCode: code, checks, verdicts: [],
      });
      scrubDir(run.dir);
      const landing = buildLanding();
      printFuzzSummary(report, resolved.target, embedded);
      const leaks = findLeaks(run.dir, knownSecrets());
      if (leaks.length) console.error(`\nWARNING: a secret is still present under ${run.dir} (a report writer bypassed lib/mask.ts)`);
      console.log(`\nreport: ${files.html}\nlanding page: ${landing}\nrun folder: ${run.dir}`);
    } finally {
      await resolved.close();
    }
    process.exitCode = code;
  },
};
