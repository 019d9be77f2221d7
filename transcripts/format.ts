// The transcript format (fixtures/schemas/transcripts/transcript.json): types, the hand-editable writer (stable key order, one turn per line of meaning) and the validating reader.
import fs from 'node:fs';
import path from 'node:path';
import { check } from '../lib/schemas.js';
import { compilePattern, PatternError } from './pattern.js';

export const TRANSCRIPT_FORMAT = 'ces-transcript/1';
export const TRANSCRIPT_SCHEMA = 'transcripts/transcript.json';

/** Hand-written expectations, allowed wherever a recorded value stands (a text, a reply, a whole answer). */
export type Expectation = { match: string; flags?: string } | { any: true } | { oneOf: unknown[] };
/** A reply as recorded: the spec's Reply with per-run values normalised (quick replies by value, rules by label). */
export interface Reply { type: string; [k: string]: unknown }
export type Answer = Reply[] | Expectation;

/** The connector's answer to endpoint 5, shown before the first visitor message. */
export interface FirstMessagesTurn { firstMessages: Answer; ms?: number; failure?: string }
/** A visitor input (a text, or a quick-reply click by its value) and what the connector answered through endpoint 7. */
export interface VisitorTurn {
  visitor: string; quickReply?: boolean; ms?: number; bot: Answer;
  variables?: Record<string, unknown>; events?: string[]; failure?: string;
}
/** The visitor stays silent this long (the service clock is moved during replay): inactivity closes, late scheduled messages. */
export interface WaitTurn { wait: string; events?: string[] }
export type Turn = FirstMessagesTurn | VisitorTurn | WaitTurn;

export interface Transcript {
  format: typeof TRANSCRIPT_FORMAT;
  name: string;
  /** What made the file (`ces record`, `ces check connector`, `chat page`, `ces replay --update`), when, with which version. */
  recorded: { at: string; by: string; tool: string };
  /** The connector's base URL; never its secret (nor any signature). */
  connector: { url: string };
  /** The scenario the bot runs (`external.idBot`), its pseudo and language when known. */
  bot: { idBot: string | null; pseudo?: string; language?: string };
  /** The website (project) whose routing rule led to the bot. */
  website: { id: string; routingRule?: string };
  turns: Turn[];
}

export const isFirst = (t: Turn): t is FirstMessagesTurn => 'firstMessages' in t;
export const isVisitor = (t: Turn): t is VisitorTurn => 'visitor' in t;
export const isWait = (t: Turn): t is WaitTurn => 'wait' in t;

export function isExpectation(v: unknown): v is Expectation {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return (keys.includes('match') && keys.every((k) => k === 'match' || k === 'flags')) || (keys.length === 1 && (keys[0] === 'any' || keys[0] === 'oneOf'));
}

// ---- durations of wait turns --------------------------------------------------------------------------------------
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
/** `300ms`, `4s`, `5m`, `1h` → ms; undefined when not of that form. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,9})(ms|s|m|h)$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}
/** The shortest exact form of a duration (`300000` → `5m`). */
export function formatDuration(ms: number): string {
  for (const u of ['h', 'm', 's'] as const) if (ms >= UNIT_MS[u]! && ms % UNIT_MS[u]! === 0) return `${ms / UNIT_MS[u]!}${u}`;
  return `${Math.round(ms)}ms`;
}

// ---- writer -----------------------------------------------------------------------------------------------------
/** Keys come in this order wherever they appear, then the others alphabetically: the same input always gives the same bytes. */
const KEY_ORDER = [
  'format', 'name', 'recorded', 'connector', 'website', 'turns',
  'at', 'by', 'tool', 'url', 'idBot', 'pseudo', 'language', 'id', 'routingRule',
  // ces-transcript/2 (explore/transcript.ts): the conversation a turn belongs to first.
  'open', 'conversation', 'together', 'poll', 'echo', 'operator', 'token',
  'firstMessages', 'visitor', 'quickReply', 'wait', 'ms', 'failure', 'bot',
  'type', 'contentType', 'unit', 'value', 'match', 'flags', 'any', 'oneOf',
  'payload', 'duration', 'distributionRule', 'transferOptions', 'timeout', 'quickReplies',
  'variables', 'events',
];
const rank = (k: string) => { const i = KEY_ORDER.indexOf(k); return i < 0 ? KEY_ORDER.length : i; };
const sortKeys = (keys: string[]) => [...keys].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));

/** One value on one line, keys in the stable order, a space after `:` and `,` (easy to read and to diff). */
export function inline(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${sortKeys(Object.keys(o)).filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}: ${inline(o[k])}`).join(', ')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A turn: its own line; an answer's replies one per line under it. */
function turnText(t: Turn): string {
  const o = t as unknown as Record<string, unknown>;
  const listKey = isFirst(t) ? 'firstMessages' : 'bot';
  const list = o[listKey];
  const parts = sortKeys(Object.keys(o)).filter((k) => o[k] !== undefined).map((k) => {
    if (k === listKey && Array.isArray(list) && list.length) return `${JSON.stringify(k)}: [\n${list.map((r) => `      ${inline(r)}`).join(',\n')}\n    ]`;
    return `${JSON.stringify(k)}: ${inline(o[k])}`;
  });
  return `    {${parts.join(', ')}}`;
}

/** The file text of a transcript. */
export function formatTranscript(t: Transcript): string {
  const head = (['format', 'name', 'recorded', 'connector', 'bot', 'website'] as const).map((k) => `  ${JSON.stringify(k)}: ${inline(t[k])}`);
  return `{\n${head.join(',\n')},\n  "turns": [\n${t.turns.map(turnText).join(',\n')}\n  ]\n}\n`;
}

// ---- reader -----------------------------------------------------------------------------------------------------
export class TranscriptError extends Error {}

/** Every `match` expectation compiles (RE2, linear time); the first that does not is named by its place. */
function patternProblems(v: unknown, where: string): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => patternProblems(x, `${where}[${i}]`));
  if (!v || typeof v !== 'object') return [];
  if (isExpectation(v) && 'match' in v) {
    try { compilePattern(v.match, v.flags ?? ''); return []; } catch (e) {
      if (e instanceof PatternError) return [`${where}.match: ${e.message}`];
      throw e;
    }
  }
  return Object.entries(v).flatMap(([k, x]) => patternProblems(x, `${where}.${k}`));
}

/** Parses and validates a transcript text; errors say where (JSON Pointer or path) and what is accepted. */
export function parseTranscript(text: string, file = 'transcript'): Transcript {
  let data: unknown;
  try { data = JSON.parse(text); } catch (e) { throw new TranscriptError(`${file}: not JSON (${(e as Error).message})`); }
  const err = check(TRANSCRIPT_SCHEMA, data);
  if (err) throw new TranscriptError(`${file}: not a transcript of format ${TRANSCRIPT_FORMAT} (fixtures/schemas/transcripts/transcript.json): ${err}`);
  const t = data as Transcript;
  const problems = t.turns.flatMap((turn, i) => [
    ...patternProblems(turn, `turns[${i}]`),
    ...(isWait(turn) && parseDuration(turn.wait) === undefined ? [`turns[${i}].wait: ${JSON.stringify(turn.wait)} is not a duration like 300ms, 4s, 5m or 1h`] : []),
  ]);
  if (problems.length) throw new TranscriptError(`${file}: ${problems.join('; ')}`);
  return t;
}

export function readTranscript(file: string): Transcript {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { throw new TranscriptError(`cannot read ${file}: ${(e as Error).message}`); }
  return parseTranscript(text, file);
}

/** The transcript files named by the arguments: files as given, folders by their *.json files (sorted, not recursive). */
export function transcriptFiles(args: string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (!fs.existsSync(a)) throw new TranscriptError(`${a} does not exist (give transcript files or folders of them)`);
    if (fs.statSync(a).isDirectory()) {
      const inDir = fs.readdirSync(a).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(a, f));
      if (!inDir.length) throw new TranscriptError(`${a} holds no *.json transcript`);
      out.push(...inDir);
    } else out.push(a);
  }
  return [...new Set(out.map((f) => path.resolve(f)))];
}

/** A file name for a transcript: lower-case words of its name, at most 60 characters. */
export function slug(name: string): string {
  return name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'conversation';
}

/** Writes a transcript to `out`: a file path (`.json`) or a folder (named after the transcript, never overwriting another). */
export function writeTranscript(t: Transcript, out: string): string {
  let file = out;
  if (!out.endsWith('.json')) {
    fs.mkdirSync(out, { recursive: true });
    file = path.join(out, `${slug(t.name)}.json`);
    for (let n = 2; fs.existsSync(file); n++) file = path.join(out, `${slug(t.name)}-${n}.json`);
  } else fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(file, formatTranscript(t));
  return file;
}
