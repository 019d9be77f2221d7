// Matches a recorded value, which may hold hand-written expectations ({match}, {any}, {oneOf}), against what the bot answers now.
import { isExpectation } from './format.js';
import { compilePattern } from './pattern.js';
import { sameRule } from './normalise.js';

/** Longest text a `match` pattern is run on: bot texts are at most 450 characters; this leaves room for cards and variables. */
export const MATCH_TEXT_MAX = 10_000;

/** True when `actual` satisfies `expected` (recorded values compare equal; expectations are tested; objects key by key). */
export function matches(expected: unknown, actual: unknown): boolean {
  if (isExpectation(expected)) {
    if ('any' in expected) return true;
    if ('oneOf' in expected) return expected.oneOf.some((alt) => matches(alt, actual));
    return typeof actual === 'string' && actual.length <= MATCH_TEXT_MAX && compilePattern(expected.match, expected.flags ?? '').test(actual);
  }
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matches(e, actual[i]));
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = new Set([...Object.keys(e), ...Object.keys(a)].filter((k) => e[k] !== undefined || a[k] !== undefined));
    return [...keys].every((k) => matches(e[k], a[k]));
  }
  if (typeof expected === 'string' && typeof actual === 'string') return sameRule(expected, actual);
  return expected === actual;
}

/** A value as the reports show it: the expectation in words, or the recorded text. */
export function describeExpected(v: unknown): string {
  if (isExpectation(v)) {
    if ('any' in v) return 'any value';
    if ('oneOf' in v) return `one of ${v.oneOf.map(describeExpected).join(' | ')}`;
    return `/${v.match}/${v.flags ?? ''}`;
  }
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'nothing';
}
