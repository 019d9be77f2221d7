// Resolves the target of a run: a target file given by the user, or the embedded reference stack started in this process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTarget, TargetError, type Target } from '../lib/target.js';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { UnknownDeviationError } from '../reference-impl/deviations.js';
import { UsageError } from './usage.js';

export interface ResolvedTarget { target: Target; file: string; stack?: Stack; close(): Promise<void> }

export async function resolveTarget(opts: { target?: string; deviate?: string[]; seed?: number; /** Not used: the target file never goes under reports/. */ runDir?: string }): Promise<ResolvedTarget> {
  if (opts.target) {
    if (opts.deviate?.length) throw new UsageError('--deviate applies to the embedded reference implementation only (omit --target)');
    try {
      const target = loadTarget(opts.target);
      return { target, file: path.resolve(opts.target), close: async () => {} };
    } catch (e) {
      if (e instanceof TargetError) throw new UsageError(e.message);
      throw e;
    }
  }
  let stack: Stack;
  try {
    // The embedded target file holds live keys and passwords: it lives in a private temporary folder, never under reports/.
    stack = await startStack({ deviate: opts.deviate ?? [], seed: opts.seed, workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ces-embedded-')) });
  } catch (e) {
    if (e instanceof UnknownDeviationError) throw new UsageError(e.message);
    throw e;
  }
  const file = path.join(path.dirname(stack.ready.ca_file), 'target.json');
  fs.writeFileSync(file, JSON.stringify(stack.ready, null, 2));
  return { target: stack.ready, file, stack, close: async () => { await stack.close(); fs.rmSync(path.dirname(file), { recursive: true, force: true }); } };
}
