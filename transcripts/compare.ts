// Compares a recorded transcript with the one replayed today, turn by turn, and classifies each difference (text, quick replies, missing/extra reply, close/transfer, variables, events, timing).
import { LIMITS } from '../lib/limits.js';
import { isExpectation, isFirst, isVisitor, isWait, type Answer, type Reply, type Transcript, type Turn } from './format.js';
import { describeExpected, matches } from './expect.js';
import { isCloseOrTransfer } from './normalise.js';
import type { Verdict } from '../lib/verdicts.js';
import { NO_BOT } from './from-service.js';


export type DifferenceKind =
  | 'text changed' | 'content changed' | 'quick replies changed' | 'reply missing' | 'reply extra' | 'close/transfer changed'
  | 'await changed' | 'variables changed' | 'events changed' | 'slower' | 'past the spec limit' | 'no answer' | 'not played';

export interface Difference {
  /** 1-based position of the turn in the recorded transcript. */
  turn: number;
  kind: DifferenceKind;
  /** The vendor checks' vocabulary (lib/verdicts.ts): a regression fails, a slower answer or a changed delay warns. */
  verdict: 'fail' | 'warn';
  /** One line: what differs and where (reply number, variable name). */
  what: string;
  recorded?: string;
  now?: string;
}

export interface Comparison { verdict: Verdict; differences: Difference[]; notJudged: string[] }

/** A reply slower than recorded by more than max(this, SLOWER_RATIO × recorded) is a WARN (issue 17). */
export const SLOWER_MIN_MS = 500;
export const SLOWER_RATIO = 0.5;
export const slowerThreshold = (recordedMs: number): number => recordedMs + Math.max(SLOWER_MIN_MS, SLOWER_RATIO * recordedMs);

/** A reply in a few words (reports). */
export function describeReply(r: unknown): string {
  if (isExpectation(r)) return describeExpected(r);
  const x = r as Reply;
  switch (x?.type) {
    case 'message': {
      const p = x.payload as any;
      const body = p?.contentType === 'text' ? describeExpected(p.value) : `${p?.contentType ?? 'payload'}${p?.title ? ` ${describeExpected(p.title)}` : p?.name ? ` ${describeExpected(p.name)}` : ''}`;
      return `message ${body}${x.quickReplies ? ` [quick replies: ${describeQuickReplies(x.quickReplies)}]` : ''}`;
    }
    case 'await': return `await ${(x.duration as any)?.value} ${(x.duration as any)?.unit}`;
    case 'transfer': return `transfer to ${describeExpected(x.distributionRule)}${x.transferOptions ? ` (timeout ${(x.transferOptions as any)?.timeout?.value} ${(x.transferOptions as any)?.timeout?.unit})` : ''}`;
    case 'close': return 'close';
    default: return JSON.stringify(r);
  }
}
const describeQuickReplies = (q: unknown): string => (Array.isArray(q) ? q.map(describeExpected).join(' | ') : describeExpected(q));
const describeVars = (v: Record<string, unknown> | undefined) => (v ? Object.entries(v).map(([k, x]) => `${k}=${describeExpected(x)}`).join(', ') : 'none');

/** Longest common subsequence of two reply lists, paired by reply type (an expectation pairs with anything). */
function align(rec: unknown[], now: Reply[]): Array<[number | null, number | null]> {
  const key = (x: unknown) => (isExpectation(x) ? '*' : (x as Reply)?.type);
  const same = (a: unknown, b: Reply) => key(a) === '*' || key(a) === b.type;
  const n = rec.length; const m = now.length;
  const L = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i]![j] = same(rec[i], now[j]!) ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const out: Array<[number | null, number | null]> = [];
  let i = 0; let j = 0;
  while (i < n && j < m) {
    if (same(rec[i], now[j]!)) out.push([i++, j++]);
    else if (L[i + 1]![j]! >= L[i]![j + 1]!) out.push([i++, null]);
    else out.push([null, j++]);
  }
  while (i < n) out.push([i++, null]);
  while (j < m) out.push([null, j++]);
  return out;
}

function compareReply(turn: number, k: number, rec: unknown, now: Reply): Difference[] {
  const at = `reply ${k + 1}`;
  if (isExpectation(rec)) return matches(rec, now) ? [] : [{ turn, kind: 'content changed', verdict: 'fail', what: at, recorded: describeExpected(rec), now: describeReply(now) }];
  const r = rec as Reply;
  const out: Difference[] = [];
  switch (r.type) {
    case 'message': {
      const rp = r.payload as any; const np = now.payload as any;
      if (rp?.contentType === 'text' && np?.contentType === 'text') {
        if (!matches(rp.value, np.value)) out.push({ turn, kind: 'text changed', verdict: 'fail', what: at, recorded: describeExpected(rp.value), now: JSON.stringify(np.value) });
      } else if (!matches(rp, np)) out.push({ turn, kind: 'content changed', verdict: 'fail', what: at, recorded: describeReply(r), now: describeReply(now) });
      if (!matches(r.quickReplies ?? [], now.quickReplies ?? [])) out.push({ turn, kind: 'quick replies changed', verdict: 'fail', what: at, recorded: describeQuickReplies(r.quickReplies ?? []), now: describeQuickReplies(now.quickReplies ?? []) });
      return out;
    }
    case 'await':
      return matches(r.duration, now.duration) ? [] : [{ turn, kind: 'await changed', verdict: 'warn', what: `${at}: the scheduled delay changed`, recorded: describeReply(r), now: describeReply(now) }];
    case 'transfer':
      return matches(r.distributionRule, now.distributionRule) && matches(r.transferOptions, now.transferOptions) ? [] : [{ turn, kind: 'close/transfer changed', verdict: 'fail', what: at, recorded: describeReply(r), now: describeReply(now) }];
    case 'close': return [];
    default: return matches(r, now) ? [] : [{ turn, kind: 'content changed', verdict: 'fail', what: at, recorded: describeReply(r), now: describeReply(now) }];
  }
}

function compareLists(turn: number, rec: unknown[], now: Reply[]): Difference[] {
  const out: Difference[] = [];
  for (const [i, j] of align(rec, now)) {
    if (i !== null && j !== null) out.push(...compareReply(turn, i, rec[i], now[j]!));
    else if (i !== null) {
      const t = (rec[i] as Reply)?.type;
      out.push({ turn, kind: t === 'close' || t === 'transfer' ? 'close/transfer changed' : 'reply missing', verdict: 'fail', what: `reply ${i + 1} is not answered any more`, recorded: describeReply(rec[i]), now: 'nothing' });
    } else {
      const t = now[j!]!.type;
      out.push({ turn, kind: t === 'close' || t === 'transfer' ? 'close/transfer changed' : 'reply extra', verdict: 'fail', what: `a reply is answered that was not recorded (now reply ${j! + 1})`, recorded: 'nothing', now: describeReply(now[j!]) });
    }
  }
  return out;
}

/** The answer (a reply list, or a hand-written expectation over the whole list) against today's replies. */
function compareAnswer(turn: number, rec: Answer, now: Reply[], displayedOnly: boolean): Difference[] {
  const shown = (list: unknown[]) => (displayedOnly ? list.filter((x) => isExpectation(x) || (x as Reply)?.type === 'message') : list);
  if (isExpectation(rec)) {
    if ('any' in rec) return [];
    if ('oneOf' in rec) {
      const tries = rec.oneOf.map((alt) => (Array.isArray(alt) ? compareLists(turn, shown(alt), now) : matches(alt, now) ? [] : [{ turn, kind: 'content changed' as const, verdict: 'fail' as const, what: 'the answer', recorded: describeExpected(alt), now: now.map(describeReply).join('; ') }]));
      if (tries.some((d) => d.length === 0)) return [];
      const closest = tries.reduce((a, b) => (b.length < a.length ? b : a));
      return closest.map((d) => ({ ...d, what: `${d.what} (closest of ${rec.oneOf.length} alternatives)` }));
    }
    return [{ turn, kind: 'content changed', verdict: 'fail', what: 'a text pattern cannot stand for a whole answer', recorded: describeExpected(rec), now: now.map(describeReply).join('; ') }];
  }
  return compareLists(turn, shown(rec), now);
}

function compareVariables(turn: number, rec: Record<string, unknown> | undefined, now: Record<string, unknown> | undefined): Difference[] {
  const r = rec ?? {}; const n = now ?? {};
  const names = [...new Set([...Object.keys(r), ...Object.keys(n)])].sort();
  const changed = names.filter((k) => !(k in n) || !(k in r) || !matches(r[k], n[k]));
  if (!changed.length) return [];
  const what = changed.map((k) => (!(k in n) ? `${k} not collected any more` : !(k in r) ? `${k} collected now` : `${k} changed`)).join(', ');
  return [{ turn, kind: 'variables changed', verdict: 'fail', what, recorded: describeVars(rec), now: describeVars(now) }];
}

function compareEvents(turn: number, rec: string[] | undefined, now: string[] | undefined): Difference[] {
  const r = rec ?? []; const n = now ?? [];
  if (r.length === n.length && r.every((e, i) => matches(e, n[i]))) return [];
  const involved = [...r, ...n].some(isCloseOrTransfer);
  return [{ turn, kind: involved ? 'close/transfer changed' : 'events changed', verdict: 'fail', what: 'what the service did', recorded: r.join('; ') || 'nothing', now: n.join('; ') || 'nothing' }];
}

function compareTiming(turn: number, recMs: number | undefined, nowMs: number | undefined, limitMs: number, what: string, notJudged: Set<string>, displayedOnly: boolean): Difference[] {
  if (recMs === undefined) return [];
  if (nowMs === undefined) {
    if (displayedOnly) notJudged.add('answer times: the target does not expose the connector exchanges (GET {sim_url}/conversations/{id}/exchanges)');
    return [];
  }
  if (nowMs > limitMs) return [{ turn, kind: 'past the spec limit', verdict: 'fail', what: `${what}: ${nowMs} ms, past the spec's ${limitMs / 1000} s`, recorded: `${recMs} ms`, now: `${nowMs} ms` }];
  const threshold = slowerThreshold(recMs);
  if (nowMs > threshold) return [{ turn, kind: 'slower', verdict: 'warn', what: `${what}: ${nowMs} ms, slower than recorded by more than max(${SLOWER_MIN_MS} ms, ${SLOWER_RATIO * 100} %) (threshold ${Math.round(threshold)} ms)`, recorded: `${recMs} ms`, now: `${nowMs} ms` }];
  return [];
}

function failureDifference(turn: number, rec: string | undefined, now: string | undefined, limitMs: number, what: string): Difference | undefined {
  if (now && !rec) {
    const timeout = /time limit/.test(now);
    return { turn, kind: timeout ? 'past the spec limit' : 'no answer', verdict: 'fail', what: timeout ? `${what}: no answer within the spec's ${limitMs / 1000} s; the service shows nothing` : `${what}: the answer was not used (${now})`, recorded: 'answered', now };
  }
  if (rec && !now) return { turn, kind: 'reply extra', verdict: 'fail', what: `${what}: recorded without a usable answer, answered now`, recorded: rec, now: 'answered' };
  if (rec && now && rec !== now) return { turn, kind: 'no answer', verdict: 'fail', what: `${what}: failed differently`, recorded: rec, now };
  return undefined;
}

export interface CompareOptions {
  /** Today's turns hold displayed messages only (the target exposes no exchanges): awaits, transfers and closes are judged through events. */
  displayedOnly?: boolean;
  /** Positions (0-based, among today's turns after the first messages) the replay could not play faithfully. */
  unplayed?: Set<number>;
  notJudged?: string[];
}

/** Every difference between the recorded transcript and today's, with the transcript's verdict. */
export function compareTranscripts(recorded: Transcript, now: Transcript, opts: CompareOptions = {}): Comparison {
  const differences: Difference[] = [];
  const notJudged = new Set<string>(opts.notJudged ?? []);
  if (opts.displayedOnly) notJudged.add('awaits, transfers, closes and variables as answered: the target exposes only what was displayed (compared through events)');
  // Service events are known only where the recording went through a service (not for `ces check connector --record`).
  const judgeEvents = recorded.recorded.by !== 'ces check connector';
  const nowFirst = now.turns.find(isFirst);
  const nowRest = now.turns.filter((t) => !isFirst(t));
  // No bot took the conversation (the routing rule sent it to a human): one difference says so, not one per turn.
  if (nowRest.some((t) => isVisitor(t) && t.failure === NO_BOT)) {
    const turn = recorded.turns.findIndex((t) => isVisitor(t)) + 1;
    return { verdict: 'fail', notJudged: [...notJudged], differences: [{ turn, kind: 'no answer', verdict: 'fail', what: `${NO_BOT} on website ${now.website.id}: its routing rule sent it to a human operator (is the bot set up and available?)`, recorded: `scenario ${recorded.bot.idBot ?? '?'} answered`, now: 'no bot' }] };
  }
  let k = 0;
  recorded.turns.forEach((rt, idx) => {
    const turn = idx + 1;
    if (isFirst(rt)) {
      if (!nowFirst) { differences.push({ turn, kind: 'reply missing', verdict: 'fail', what: 'no first messages were asked for' }); return; }
      const f = failureDifference(turn, rt.failure, nowFirst.failure, LIMITS.firstMessagesTimeoutMs, 'first messages');
      if (f) differences.push(f);
      else if (!rt.failure) differences.push(...compareAnswer(turn, rt.firstMessages, Array.isArray(nowFirst.firstMessages) ? nowFirst.firstMessages : [], opts.displayedOnly === true));
      differences.push(...compareTiming(turn, rt.ms, nowFirst.ms, LIMITS.firstMessagesTimeoutMs, 'first messages', notJudged, opts.displayedOnly === true).filter(() => !f));
      return;
    }
    const position = k++;
    const nt: Turn | undefined = nowRest[position];
    if (!nt) {
      differences.push({ turn, kind: 'not played', verdict: 'fail', what: isVisitor(rt) ? `"${rt.visitor}" could not be sent: the conversation was closed before` : `wait ${rt.wait}: the conversation was closed before`, recorded: isVisitor(rt) ? describeAnswer(rt.bot) : (rt.events ?? []).join('; '), now: 'nothing' });
      return;
    }
    if (opts.unplayed?.has(position)) return;
    if (isWait(rt)) {
      if (judgeEvents) differences.push(...compareEvents(turn, rt.events, (nt as { events?: string[] }).events));
      return;
    }
    if (!isVisitor(nt)) return;
    const f = failureDifference(turn, rt.failure, nt.failure, LIMITS.messageTimeoutMs, `answer to "${rt.visitor}"`);
    if (f) differences.push(f);
    else if (!rt.failure) {
      differences.push(...compareAnswer(turn, rt.bot, Array.isArray(nt.bot) ? nt.bot : [], opts.displayedOnly === true));
      if (!opts.displayedOnly) differences.push(...compareVariables(turn, rt.variables, nt.variables));
    }
    if (judgeEvents) differences.push(...compareEvents(turn, rt.events, nt.events));
    if (!f) differences.push(...compareTiming(turn, rt.ms, nt.ms, LIMITS.messageTimeoutMs, `the answer to "${rt.visitor}"`, notJudged, opts.displayedOnly === true));
  });
  const verdict: Verdict = differences.some((d) => d.verdict === 'fail') ? 'fail' : differences.length ? 'warn' : 'pass';
  return { verdict, differences, notJudged: [...notJudged] };
}

export const describeAnswer = (a: Answer): string => (Array.isArray(a) ? a.map(describeReply).join('; ') || 'no replies' : describeExpected(a));
