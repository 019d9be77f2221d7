// Tools a project test needs from the machine (k6): for a user a missing tool skips the test with its reason; in CI (CI set, as CI systems and .ci/run do) it fails the test with the same message.
import { findK6 } from '../cli/commands/load.js';

/** True in CI: the CI variable set and not "false"/"0" (GitHub Actions, GitLab CI and .ci/run set it). */
export const inCi = (env: NodeJS.ProcessEnv = process.env): boolean => !!env.CI && env.CI !== 'false' && env.CI !== '0';

export interface ToolGate {
  /** Why the test is skipped (a user's machine without the tool), else false: in CI the test runs and `require` fails it. */
  skip: string | false;
  /** Fails the test when the tool is missing (reached only in CI, where a missing tool is a broken set-up, never a skip). */
  require(): void;
}

/** The gate of a tool: `missing` is the message of its absence ('' when present). */
export function toolGate(missing: string, env: NodeJS.ProcessEnv = process.env): ToolGate {
  return {
    skip: missing && !inCi(env) ? missing : false,
    require() { if (missing) throw new Error(`${missing} (CI: a missing tool fails the test; on a developer machine it is skipped)`); },
  };
}

/** k6, as `ces load` and `ces bench` find it. */
export function k6Gate(): ToolGate {
  let missing = '';
  try { findK6(); } catch (e) { missing = (e as Error).message; }
  return toolGate(missing);
}
