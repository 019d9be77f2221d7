// A session as a vendor reads and replays it: the numbered transcript printed for a failure, and the transcript format ces-transcript/2 (several conversations, operator-role turns) that `ces replay --connector` plays directly against the connector.
import fs from 'node:fs';
import path from 'node:path';
import type { Exchange } from '../check/connector-client.js';
import { replySummary } from '../check/concurrency.js';
import { check } from '../lib/schemas.js';
import { inline, TranscriptError } from '../transcripts/format.js';
import type { Finding } from './oracle.js';
import type { CallRecord, SingleStep, Step, StepRecord } from './session.js';

export const SESSION_FORMAT = 'ces-transcript/2';
export const SESSION_SCHEMA = 'transcripts/session.json';

/** What the connector answered a turn: its replies (and variables) on 2xx, else the status, or that no answer came. */
interface Answered { bot?: unknown[]; variables?: unknown; status?: number; error?: string; ms?: number; failure?: string }
export type SessionTurn =
  | ({ open: string; token: string; visitor: string } & Answered)
  | ({ conversation: string; visitor: string; quickReply?: boolean } & Answered)
  | ({ conversation: string; echo: unknown } & Answered)
  | ({ conversation: string; operator: string } & Answered)
  | ({ poll: true } & Answered)
  | { together: SessionTurn[] };

export interface SessionTranscript {
  format: typeof SESSION_FORMAT;
  name: string;
  recorded: { at: string; by: string; tool: string };
  connector: { url: string };
  bot: { idBot: string | null };
  website: { id: string };
  /** The property the session broke when it was recorded (a replay judges every clause again). */
  failure?: { clause: string; message: string };
  turns: SessionTurn[];
}

const said = (t: string, max = 50) => JSON.stringify(t.length > max ? `${t.slice(0, max - 1)}…` : t);
/** The call of a step whose answer a turn records: endpoint 7 (or 4 for a poll), the last call of an open. */
const answerOf = (calls: CallRecord[]): CallRecord | undefined => calls.at(-1);

function answered(c: CallRecord | undefined): Answered {
  if (!c) return { error: 'not sent (the conversation was not opened)' };
  const ex = c.exchange;
  const failure = c.findings[0] ? `${c.findings[0].clause}: ${c.findings[0].message}` : undefined;
  if (ex.error) return { error: 'no answer', ms: Math.round(ex.ms), ...(failure ? { failure } : {}) };
  const json = ex.json as { replies?: unknown; variables?: unknown } | unknown[] | undefined;
  const base = { ms: Math.round(ex.ms), ...(ex.status! < 200 || ex.status! > 299 ? { status: ex.status } : {}), ...(failure ? { failure } : {}) };
  if (Array.isArray(json)) return { ...base, bot: json };
  return { ...base, ...(Array.isArray(json?.replies) ? { bot: json!.replies as unknown[] } : {}), ...(json?.variables !== undefined ? { variables: json.variables } : {}) };
}

function turnOf(step: Step, calls: CallRecord[]): SessionTurn {
  if (step.kind === 'together') {
    return { together: step.steps.map((s) => turnOf(s, calls.filter((c) => c.context.conversation === ('conversation' in s ? s.conversation : undefined)))) };
  }
  const a = answered(answerOf(calls));
  switch (step.kind) {
    case 'open': return { open: step.conversation, token: step.token, visitor: step.text, ...a };
    case 'visitor': return { conversation: step.conversation, visitor: step.text, ...a };
    case 'click': return { conversation: step.conversation, visitor: step.text, quickReply: true, ...a };
    case 'echo': return { conversation: step.conversation, echo: step.payload, ...a };
    case 'operator': return { conversation: step.conversation, operator: step.text, ...a };
    case 'poll': return { poll: true, ...a };
  }
}

/** The steps a transcript replays. */
export function stepsOf(t: SessionTranscript): Step[] {
  const single = (turn: SessionTurn): SingleStep => {
    if ('open' in turn) return { kind: 'open', conversation: turn.open, token: turn.token, text: turn.visitor };
    if ('echo' in turn) return { kind: 'echo', conversation: turn.conversation, payload: turn.echo };
    if ('operator' in turn) return { kind: 'operator', conversation: turn.conversation, text: turn.operator };
    if ('poll' in turn) return { kind: 'poll' };
    if ('visitor' in turn) return { kind: turn.quickReply ? 'click' : 'visitor', conversation: turn.conversation, text: turn.visitor };
    throw new TranscriptError('a together turn inside a together turn');
  };
  return t.turns.map((turn) => ('together' in turn ? { kind: 'together', steps: turn.together.map(single) } : single(turn)));
}

export function sessionTranscript(records: StepRecord[], meta: { name: string; by: string; tool: string; url: string; idBot: string; website: string; finding?: Finding }): SessionTranscript {
  return {
    format: SESSION_FORMAT, name: meta.name, recorded: { at: new Date().toISOString(), by: meta.by, tool: meta.tool }, connector: { url: meta.url },
    bot: { idBot: meta.idBot }, website: { id: meta.website }, ...(meta.finding ? { failure: { clause: meta.finding.clause, message: meta.finding.message } } : {}),
    turns: records.map((r) => turnOf(r.step, r.calls)),
  };
}

/** The file text: the head on a line per key, one turn per line (readable diffs, as ces-transcript/1). */
export function formatSession(t: SessionTranscript): string {
  const head = (['format', 'name', 'recorded', 'connector', 'bot', 'website', 'failure'] as const).filter((k) => t[k] !== undefined).map((k) => `  ${JSON.stringify(k)}: ${inline(t[k])}`);
  return `{\n${head.join(',\n')},\n  "turns": [\n${t.turns.map((x) => `    ${inline(x)}`).join(',\n')}\n  ]\n}\n`;
}

export function writeSession(t: SessionTranscript, file: string): string {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, formatSession(t));
  return file;
}

/** True when a parsed JSON document says it is a session transcript (format 2). */
export const isSessionFormat = (data: unknown): boolean => (data as { format?: unknown } | null)?.format === SESSION_FORMAT;

/** Parses and validates a session transcript; errors say where and what is accepted. */
export function parseSession(text: string, file: string): SessionTranscript {
  let data: unknown;
  try { data = JSON.parse(text); } catch (e) { throw new TranscriptError(`${file}: not JSON (${(e as Error).message})`); }
  const err = check(SESSION_SCHEMA, data);
  if (err) throw new TranscriptError(`${file}: not a transcript of format ${SESSION_FORMAT} (fixtures/schemas/transcripts/session.json): ${err}`);
  return data as SessionTranscript;
}

/** The summary of a call in a numbered line: what came back, in a few words. */
const outcome = (ex: Exchange) => `${ex.error ? '' : `${ex.status} `}${replySummary(ex, 90)}`.replace(/^(\d+) \1$/, '$1');

function stepText(step: Step, calls: CallRecord[]): string {
  if (step.kind === 'together') return `at once: ${step.steps.map((s) => stepText(s, calls.filter((c) => c.context.conversation === ('conversation' in s ? s.conversation : undefined)))).join(' | ')}`;
  const last = answerOf(calls);
  const ms = last ? ` in ${Math.round(last.exchange.ms)} ms` : '';
  const got = last ? ` → ${outcome(last.exchange)}${ms}` : ' (not sent)';
  const marks = calls.flatMap((c) => c.findings.map((f) => f.clause));
  const mark = marks.length ? `   ✘ ${[...new Set(marks)].join(', ')}` : '';
  switch (step.kind) {
    case 'open': {
      const before = calls.slice(0, -1).map((c) => `${c.context.kind === 'first-messages' ? 'first messages' : 'POST /conversations'} → ${outcome(c.exchange)}`).join('; ');
      return `open ${step.conversation} (token ${step.token}): ${before}; visitor ${said(step.text)}${got}${mark}`;
    }
    case 'visitor': return `${step.conversation} visitor ${said(step.text)}${got}${mark}`;
    case 'click': return `${step.conversation} clicks the quick reply ${said(step.text)}${got}${mark}`;
    case 'echo': return `${step.conversation} echo of the bot's ${said(JSON.stringify(step.payload), 40)} (role operator)${got}${mark}`;
    case 'operator': return `${step.conversation} operator message ${said(step.text)}${got}${mark}`;
    case 'poll': return `GET /availability-strategies${got}${mark}`;
  }
}

/** The numbered transcript of a session, one line per step, the failing call marked with its clause. */
export function numbered(records: StepRecord[]): string[] {
  return records.map((r, i) => `${String(i + 1).padStart(2)}. ${stepText(r.step, r.calls)}`);
}
