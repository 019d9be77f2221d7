// `ces record` and `ces replay` as functions: hold conversations, compare them with their recordings, write the reports, give the exit code.
import fs from 'node:fs';
import path from 'node:path';
import { QUICK_REPLY_STEP } from '../check/settings.js';
import { buildLanding, writeRunSummary, type RunSummary } from '../lib/landing.js';
import { mask } from '../lib/mask.js';
import { REPORTS } from '../lib/paths.js';
import { countsLine, LABEL, runVerdict } from '../lib/verdicts.js';
import { compareTranscripts, describeAnswer } from './compare.js';
import { isFirst, isVisitor, isWait, parseDuration, readTranscript, transcriptFiles, TranscriptError, writeTranscript, type Transcript, type Turn } from './format.js';
import { holdConversation, SetupError, type Input } from './service.js';
import { wantOf, type Session } from './session.js';
import { junitXml, replayPage, terminalDiff, transcriptCheck, transcriptsPage, type ReplayResult } from './report.js';

export const WAIT_STEP = '@wait';

/**
 * A recording script: a JSON array of visitor texts (inline or a file), as `ces check connector --script` takes, plus
 * `"@quick-reply"` (click the first quick reply offered), `"@quick-reply <value>"` (click that one) and `"@wait 5m"`.
 */
export function parseRecordScript(value: string): Input[] {
  let text = value;
  if (!value.trim().startsWith('[')) {
    try { text = fs.readFileSync(value, 'utf8'); } catch (e) { throw new TranscriptError(`--script ${value}: neither a JSON array nor a readable file (${(e as Error).message})`); }
  }
  let steps: unknown;
  try { steps = JSON.parse(text); } catch (e) { throw new TranscriptError(`--script: not JSON (${(e as Error).message})`); }
  if (!Array.isArray(steps) || !steps.length || !steps.every((s) => typeof s === 'string' && s.length)) throw new TranscriptError(`--script: a non-empty JSON array of visitor texts ("${QUICK_REPLY_STEP}", "${QUICK_REPLY_STEP} <value>", "${WAIT_STEP} 5m" are steps)`);
  const inputs = (steps as string[]).map((s, i): Input => {
    if (s === QUICK_REPLY_STEP) return { clickFirst: true };
    if (s.startsWith(`${QUICK_REPLY_STEP} `)) return { visitor: s.slice(QUICK_REPLY_STEP.length + 1), quickReply: true };
    if (s.startsWith(`${WAIT_STEP} `)) {
      const ms = parseDuration(s.slice(WAIT_STEP.length + 1));
      if (ms === undefined) throw new TranscriptError(`--script step ${i + 1} "${s}": a wait is "${WAIT_STEP} <n>ms|s|m|h", e.g. "${WAIT_STEP} 5m"`);
      return { wait: ms };
    }
    return { visitor: s };
  });
  if (!('visitor' in inputs[0]!)) throw new TranscriptError('--script: the first step must be a visitor text (it starts the conversation)');
  return inputs;
}

/** The inputs of a recorded transcript: its visitor texts, quick-reply clicks by value and waits, in order. */
export function inputsOf(t: Transcript): Input[] {
  const inputs = t.turns.flatMap((turn): Input[] => (isVisitor(turn) ? [{ visitor: turn.visitor, quickReply: turn.quickReply }] : isWait(turn) ? [{ wait: parseDuration(turn.wait)! }] : []));
  if (!inputs.length || !('visitor' in inputs[0]!)) throw new TranscriptError(`transcript "${t.name}": the first turn after the first messages must be a visitor turn`);
  return inputs;
}

/** Holds one conversation from a script and returns its transcript (`ces record`). */
export async function recordConversation(session: Session, inputs: Input[], name: string, idBot?: string): Promise<{ transcript: Transcript; notJudged: string[] }> {
  const meta = await session.prepare({ idBot });
  const held = await holdConversation(session.sim, inputs, { ...meta, name, by: 'ces record' });
  return { transcript: held.transcript, notJudged: held.notJudged };
}

/** Today's turns accepted where they differ; recorded turns (and their hand-written expectations) kept where they still hold. */
export function acceptNow(recorded: Transcript, now: Transcript, changedTurns: Set<number>): Transcript {
  const nowFirst = now.turns.find(isFirst);
  const nowRest = now.turns.filter((t) => !isFirst(t));
  let k = 0;
  const turns: Turn[] = recorded.turns.flatMap((rt, idx): Turn[] => {
    const nt = isFirst(rt) ? nowFirst : nowRest[k++];
    if (!changedTurns.has(idx + 1)) return [rt];
    return nt ? [nt] : [];
  });
  return { ...recorded, recorded: { ...now.recorded, by: 'ces replay --update' }, turns };
}

export interface ReplayOptions {
  files: string[]; update: boolean; runDir: string; runId: string; against: string; log?: (line: string) => void;
  /** A WARN (slower answer, changed delay) fails the run too, as `ces check --strict` does. */
  strict?: boolean;
  /** Where the landing page lives (default reports/, or CES_REPORTS_DIR). */
  reportsDir?: string;
}

/** A path as reports show it: relative to the working folder when inside it. */
const shortPath = (f: string) => { const rel = path.relative(process.cwd(), f); return rel && !rel.startsWith('..') ? rel : f; };

/** Reads and validates every transcript named (files or folders): a broken file is a usage error before anything is played. */
export function loadTranscripts(args: string[]): Array<{ file: string; abs: string; t: Transcript }> {
  const recorded = transcriptFiles(args).map((f) => ({ file: shortPath(f), abs: f, t: readTranscript(f) }));
  for (const r of recorded) inputsOf(r.t);
  return recorded;
}

/** Replays every transcript through the session, prints the diffs, writes the reports; the exit code is 1 when any transcript has a FAIL difference. */
export async function replayTranscripts(session: Session, opts: ReplayOptions): Promise<{ code: 0 | 1; results: ReplayResult[] }> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const recorded = loadTranscripts(opts.files);
  const results: ReplayResult[] = [];
  for (const [i, r] of recorded.entries()) {
    log(`[${i + 1}/${recorded.length}] replaying ${r.file} (${r.t.turns.length} turns) against ${session.describe}`);
    const started = performance.now();
    const meta = await session.prepare(wantOf(r.t));
    const held = await holdConversation(session.sim, inputsOf(r.t), { ...meta, name: r.t.name, by: 'ces replay' });
    const comparison = compareTranscripts(r.t, held.transcript, { displayedOnly: held.displayedOnly, unplayed: held.unplayed, notJudged: held.notJudged });
    const result: ReplayResult = { file: r.file, recorded: r.t, now: held.transcript, comparison, ms: performance.now() - started };
    results.push(result);
    log(terminalDiff(result));
    if (opts.update && comparison.differences.length) {
      const accepted = acceptNow(r.t, held.transcript, new Set(comparison.differences.map((d) => d.turn)));
      writeTranscript(accepted, r.abs);
      log(`  updated ${r.file}: today's answers accepted for turn(s) ${[...new Set(comparison.differences.map((d) => d.turn))].join(', ')}`);
    }
  }
  writeReplayReports(results, opts);
  const verdicts = results.map((r) => r.comparison.verdict);
  const run = runVerdict(verdicts, { strict: opts.strict });
  // --update accepted every difference: the recordings now hold today's answers.
  const code: 0 | 1 = opts.update || run.code === 0 ? 0 : 1;
  log(`\n${results.length} transcript(s): ${countsLine(verdicts)}${opts.update && run.code ? ' (differences accepted by --update)' : ''}`);
  log(`report: ${path.join(opts.runDir, 'replay.html')}\njunit: ${path.join(opts.runDir, 'junit.xml')}`);
  log(`verdict: ${opts.update && run.code ? 'differences accepted' : run.verdict === 'fail' ? `${LABEL.fail}: a conversation changed (regression)` : run.verdict === 'warn' ? `${LABEL.pass} with ${LABEL.warn}: no regression, an answer got slower or a delay changed` : `${LABEL.pass}: every conversation replays as recorded`} (exit ${code})`);
  return { code, results };
}

/** replay.html, junit.xml and summary.json in the run folder, then the landing page. */
export function writeReplayReports(results: ReplayResult[], opts: Pick<ReplayOptions, 'runDir' | 'runId' | 'against' | 'update' | 'reportsDir' | 'strict'>): void {
  fs.mkdirSync(opts.runDir, { recursive: true });
  const date = new Date().toISOString();
  // The landing page is linked only where it is (a --report-dir elsewhere has none next to it).
  const landing = path.resolve(opts.runDir, '..') === path.resolve(opts.reportsDir ?? REPORTS) ? '../index.html' : undefined;
  fs.writeFileSync(path.join(opts.runDir, 'replay.html'), replayPage(results, { against: mask(opts.against), date, landing }));
  fs.writeFileSync(path.join(opts.runDir, 'junit.xml'), junitXml(results));
  const verdicts = results.map((r) => r.comparison.verdict);
  const summary: RunSummary = {
    id: opts.runId, kind: 'replay', date, target: mask(opts.against), reference: false, deviations: [],
    exitCode: opts.update ? 0 : runVerdict(verdicts, { strict: opts.strict }).code, checks: results.map(transcriptCheck), verdicts: [],
  };
  writeRunSummary(opts.runDir, summary);
  buildLanding(opts.reportsDir ? { reportsDir: opts.reportsDir } : {});
}

/** Writes transcripts.html (readable conversations) for the transcripts in a folder. */
export function writeTranscriptsPage(dir: string, out: string, title: string): string | undefined {
  if (!fs.existsSync(dir)) return undefined;
  const items = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().flatMap((f) => {
    try { return [{ file: f, transcript: readTranscript(path.join(dir, f)) }]; } catch { return []; }
  });
  if (!items.length) return undefined;
  fs.writeFileSync(out, transcriptsPage(items, title));
  return out;
}

export { SetupError, describeAnswer };
