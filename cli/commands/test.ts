// `ces test`: run the conformance suites against a target (or the embedded reference implementation) and write reports/.
import type { CommandModule } from 'yargs';
import { SUITES } from '../../suites/list.js';
import { newRunDir, runPlaywright, finishRun, finishWritten, MASKED_BY_RUN, type BaselineOptions } from '../run.js';
import { readBaseline, BaselineError } from '../../lib/baseline.js';
import { resolveTarget, startEmbedded, type ResolvedTarget } from '../embedded.js';
import { UsageError } from '../usage.js';
import { ALLURE_REPORT, generateAllure } from '../allure.js';
import fs from 'node:fs';
import path from 'node:path';
import { lostSentence, TARGET_LOST_FILE, type TargetLost } from '../../lib/preflight.js';
import { preflightOrStop } from '../preflight-stop.js';
import { annotationTotal, type CheckResult } from '../../lib/results.js';
import { ANNOTATION } from '../../lib/verdicts.js';
import type { Target } from '../../lib/target.js';
import { chromiumMissing, findChromium, inCi, MissingPartError } from '../../lib/optional-parts.js';

/**
 * Workers of an embedded run, each on its own stack: most long checks wait in real time (retries at 10 s and 20 s, 30 s timeouts),
 * so more workers than cores shorten the run, and own stacks keep one worker's clock moves from delaying another's waits.
 */
const EMBEDDED_WORKERS = 6;

/**
 * When a check found the target gone (suites/fixtures/target.ts wrote target-lost.json): the checks that failed after a request
 * without HTTP answer, or on their time-out, are NOT JUDGED, like those skipped after it. Decided here, once every check has
 * ended, from what each check recorded (CheckResult.unanswered), never from a failure's text: a check that failed before another
 * found the target gone is covered too. Returns what the summary records, or undefined.
 */
export function targetLost(runDir: string, checks: CheckResult[]): (TargetLost & { notJudged: number }) | undefined {
  const f = path.join(runDir, TARGET_LOST_FILE);
  if (!fs.existsSync(f)) return undefined;
  const lost = JSON.parse(fs.readFileSync(f, 'utf8')) as TargetLost;
  let failedWhileGone = 0;
  for (const c of checks) {
    if (c.outcome !== 'failed' || !c.unanswered) continue;
    c.outcome = 'not-judged';
    c.reason = `${lostSentence(lost)} (this check saw: ${c.unanswered})`;
    failedWhileGone++;
  }
  // The checks skipped once the target was found gone carry the same sentence as their reason (suites/fixtures/target.ts).
  const skippedForIt = checks.filter((c) => c.outcome === 'not-judged' && c.reason === lostSentence(lost)).length;
  return { ...lost, notJudged: failedWhileGone + skippedForIt };
}

interface Args { target?: string; suite?: string; grep?: string; deviate: string[]; workers?: number; allure: boolean; preflight: boolean; strict: boolean; baseline?: string; 'write-baseline'?: string; timeout?: number; 'wire-fault'?: string }

export const testCommand: CommandModule<{}, Args> = {
  command: 'test',
  describe: 'Run the conformance suites against a target file, or against the embedded reference implementation when none is given',
  builder: (y) => y
    .option('target', { type: 'string', describe: 'Target file (JSON Schema: fixtures/schemas/harness/target.json; `ces target init` writes one). Validated, then pre-flighted' })
    .option('preflight', { type: 'boolean', default: true, describe: 'With --target: check first, in under 10 s, that every URL answers over trusted TLS, every key and user is accepted and every capability answers (--no-preflight: judge anyway)' })
    .option('suite', { type: 'string', describe: `Comma list of suites (${SUITES.join(', ')}); default: all` })
    .option('grep', { type: 'string', describe: 'Only checks whose title or clause tag matches this regular expression' })
    .option('deviate', { type: 'string', array: true, default: [] as string[], describe: 'Embedded target only: switch on a deviation (repeatable)' })
    .option('wire-fault', { type: 'string', describe: 'Embedded target only: put the wire proxy between the service and its fake connector and sink, with this wire fault on (fixtures/wire-faults.json; `ces selftest --list` lists them): see what the suites say of a service that sends that' })
    .option('workers', { type: 'number', describe: `Parallel Playwright workers (default ${EMBEDDED_WORKERS} against the embedded reference implementation, each with its own stack; 2 against a target file)` })
    .option('baseline', { type: 'string', describe: 'Baseline of known failures (written by --write-baseline): clauses failing in it are reported but do not fail the run; new failures do; fixed ones are listed' })
    .option('write-baseline', { type: 'string', describe: 'Write the clauses failing in this run to this file, as a baseline for --baseline' })
    .option('allure', { type: 'boolean', default: true, describe: 'Allure results and their HTML report (--no-allure: neither, a faster run)' })
    .option('strict', { type: 'boolean', default: false, describe: 'WARN fails the run (exit 1), as FAIL does' })
    .option('timeout', { type: 'number', describe: 'Time-out of one check, in seconds (default 120); the harness\'s own waits give up before it (a HARNESS ERROR, never a FAIL)' }),
  handler: async (a) => {
    const suites = a.suite ? a.suite.split(',').map((s) => s.trim()).filter(Boolean) : [];
    const unknown = suites.filter((s) => !SUITES.includes(s));
    if (unknown.length) throw new UsageError(`unknown suite(s) ${unknown.join(', ')}; accepted: ${SUITES.join(', ')}`);
    let baseline: BaselineOptions['baseline'];
    if (a.baseline) { try { baseline = { file: a.baseline, data: readBaseline(a.baseline) }; } catch (e) { if (e instanceof BaselineError) throw new UsageError(e.message); throw e; } }
    if (a.grep) { try { new RegExp(a.grep); } catch (e) { throw new UsageError(`--grep is not a valid regular expression: ${(e as Error).message}`); } }
    if (a.workers !== undefined && (!Number.isInteger(a.workers) || a.workers < 1)) throw new UsageError(`--workers must be a positive integer (got ${a.workers})`);
    // The browser suite (embedded only: the console pages) needs Chromium. Without it its checks are SKIP with the reason; in CI a
    // missing browser stops the run (exit 2) rather than pass unseen.
    if (!a.target && (!suites.length || suites.includes('browser')) && inCi()) {
      const chromium = findChromium();
      if (!chromium.path) throw new MissingPartError(`${chromiumMissing(chromium)} (CI is set: there a missing browser stops the run instead of skipping the browser suite)`);
    }
    const t0 = performance.now();
    const secs = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
    const wireFault = a['wire-fault'] ? { wireFault: a['wire-fault'] } : {};
    const timeoutEnv: Record<string, string> = a.timeout ? { CES_CHECK_TIMEOUT_MS: String(Math.round(a.timeout * 1000)) } : {};
    const playwright = (run: { dir: string }, files: string[], extra: { signal?: AbortSignal; extraEnv?: Record<string, string> } = {}) =>
      runPlaywright({ targetFile: files[0]!, targetFiles: files, runDir: run.dir, projects: suites, grep: a.grep, workers: a.workers, allure: a.allure, ...extra, extraEnv: { ...timeoutEnv, ...extra.extraEnv } });
    // Embedded: Playwright starts while the stacks start (a few seconds of the run): its runner loads the suites meanwhile, and each
    // worker waits for its stack's target file (suites/fixtures/current-target.ts targetFileReady). A stack that fails stops it.
    const embedded = a.target ? undefined : await startEmbedded({ deviate: a.deviate, ...wireFault, stacks: a.workers ?? EMBEDDED_WORKERS });
    const early = embedded && (() => {
      const run = newRunDir('test');
      const stop = new AbortController();
      return { run, stop, started: performance.now(), playwright: playwright(run, embedded.files, { signal: stop.signal }) };
    })();
    let resolved: ResolvedTarget;
    try {
      resolved = embedded ? await embedded.ready : await resolveTarget({ target: a.target, deviate: a.deviate, ...wireFault, stacks: 1 });
    } catch (e) {
      // A stack that failed to start: the run never judged anything, so it leaves no run folder behind.
      early?.stop.abort();
      await early?.playwright;
      if (early) fs.rmSync(early.run.dir, { recursive: true, force: true });
      throw e;
    }
    const ready = performance.now();
    let tokens: { file: string; remove(): void } | undefined;
    let code: number;
    try {
      if (a.target && a.preflight) tokens = await preflightOrStop(resolved.target, a.target);
      const run = early?.run ?? newRunDir('test');
      console.log(`ces test: target ${resolved.target.base_url}${resolved.stack ? ` (embedded reference implementation, ${resolved.stacks.length} stack(s), one per worker)` : ''}; reports in ${run.dir}`);
      const t1 = early?.started ?? performance.now();
      const { checks } = await (early?.playwright ?? playwright(run, resolved.files, { extraEnv: tokens ? { CES_TOKENS: tokens.file } : {} }));
      if (checks.length === 0) throw new UsageError('no check ran: look at the Playwright output above (a suite failed to load, or --grep matched nothing)');
      const t2 = performance.now();
      // Allure's report is generated by a child process while this one writes the others (about 5 s each for a whole run): started first.
      const allure = a.allure ? generateAllure(run.dir, checks, { reference: resolved.target.reference === true }) : undefined;
      // Issue 14 item 8: on a reference target every REST answer is also judged by fixtures/openapi.json; say how many were.
      const judged = annotationTotal(path.join(run.dir, 'results.json'), ANNOTATION.openapiJudged);
      if (judged) console.log(`ces test: ${judged} REST answers judged by fixtures/openapi.json (a mismatch fails REST-OAS-03, a REF clause of its own)`);
      const lost = targetLost(run.dir, checks);
      code = finishRun(run, 'test', resolved.target, checks, lost ? { targetLost: lost } : {}, { strict: a.strict, baseline, writeBaseline: a['write-baseline'], writing: allure ? [ALLURE_REPORT] : [], masked: MASKED_BY_RUN });
      if (allure && (await allure)) finishWritten(run, ALLURE_REPORT);
      if (lost) {
        // Same rule as the vendor checks: a target that went away is a run that could not judge it, not N failed clauses.
        console.error(`\nces: ${lostSentence(lost)}: ${lost.notJudged} check(s) not judged; the run could not judge the target (exit ${code})`);
      }
      const setUp = early ? `set-up ${((ready - t0) / 1000).toFixed(1)} s (Playwright starting meanwhile)` : `set-up ${((t1 - t0) / 1000).toFixed(1)} s`;
      console.log(`ces test: ${setUp}, suites ${((t2 - t1) / 1000).toFixed(1)} s, reports ${secs(t2)}; ${secs(t0)} in all`);
    } finally {
      tokens?.remove();
      await resolved.close();
    }
    process.exitCode = code;
  },
};
