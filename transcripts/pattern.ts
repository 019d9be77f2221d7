// The `match` expectations of transcripts, compiled with RE2JS (the JavaScript port of RE2): matching is linear in the text, so no hand-written pattern can backtrack.
import { RE2JS, RE2JSException } from 're2js';

/** Longest pattern accepted (characters): expectations are short; the bound keeps a compiled program small. */
export const PATTERN_MAX = 500;

export class PatternError extends Error {}

export interface Pattern { test(text: string): boolean }

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL };

/**
 * Compiles a `match` expectation (`flags`: `i` ignore case, `s` dot matches line ends). RE2 has no backreferences,
 * lookaround or other constructs that need backtracking: such a pattern is refused with RE2's reason.
 */
export function compilePattern(source: string, flags = ''): Pattern {
  if (source.length > PATTERN_MAX) throw new PatternError(`pattern longer than ${PATTERN_MAX} characters`);
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) throw new PatternError(`flag "${f}" is not supported (accepted: i, s)`);
    bits |= bit;
  }
  try {
    const re = RE2JS.compile(source, bits);
    return { test: (text) => re.matcher(text).find() };
  } catch (e) {
    if (e instanceof RE2JSException) throw new PatternError(`${e.message} (patterns run on RE2: no backreferences or lookaround)`);
    throw e;
  }
}
