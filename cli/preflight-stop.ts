// The pre-flight of a target file as the commands run it: any problem stops the command (exit 2) before anything is judged.
import { preflight, writeTokens } from '../lib/preflight.js';
import type { Target } from '../lib/target.js';
import { UsageError } from './usage.js';

/** Pre-flight of a target file: any problem stops the run (exit 2) before a clause is judged; else the users' tokens for the run. */
export async function preflightOrStop(target: Target, file: string): Promise<{ file: string; remove(): void }> {
  const r = await preflight(target);
  if (r.problems.length) {
    const [first, ...more] = r.problems;
    throw new UsageError(`pre-flight of target ${file} failed, nothing was judged: ${first}${more.length ? `\n  also: ${more.join('\n  also: ')}` : ''}`);
  }
  console.log(`ces: pre-flight of ${file} passed in ${(r.ms / 1000).toFixed(1)} s (${r.checked.length} checks: URLs, keys, users, capabilities)`);
  return writeTokens(r.tokens);
}
