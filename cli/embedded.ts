// Resolves the target of a run: a target file given by the user, or the embedded reference stack started in this process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTarget, TargetError, type Target } from '../lib/target.js';
import type { ReadyInfo } from '../reference-impl/stack.js';
import { generateTls } from '../lib/tls.js';
import { startInThread } from '../lib/thread-server.js';
import type { LoopProbe } from '../lib/event-loop.js';
import { UsageError } from './usage.js';
import { requireSqlite } from '../lib/optional-parts.js';
import { writeFileAtomic } from '../lib/write-atomic.js';

/** An embedded stack running in its own worker thread: its ready info (a target), and how to stop it. */
export interface EmbeddedStack { ready: ReadyInfo; eventLoop: LoopProbe; close(): Promise<void> }

export interface ResolvedTarget {
  target: Target; file: string;
  /** The embedded stack (the first of `stacks`), when no target file was given. */
  stack?: EmbeddedStack;
  /** Embedded only: one stack and target file per Playwright worker (the first is `stack` / `file`). */
  stacks: EmbeddedStack[]; files: string[];
  close(): Promise<void>;
}

/**
 * A target file given by the user, or embedded reference stacks started in this process: `stacks` of them (default 1), each with
 * its own database, clock, deviations, fake connector and sink, so checks of one worker never wait for another's clock moves.
 */
export async function resolveTarget(opts: { target?: string; deviate?: string[]; seed?: number; stacks?: number; /** The wire proxy between each stack and its partners (`ces selftest --wire`), optionally with a fault on from the start. */ wire?: boolean; wireFault?: string; /** Not used: the target file never goes under reports/. */ runDir?: string }): Promise<ResolvedTarget> {
  if (opts.target) {
    if (opts.deviate?.length) throw new UsageError('--deviate applies to the embedded reference implementation only (omit --target)');
    if (opts.wireFault) throw new UsageError('--wire-fault applies to the embedded reference implementation only (omit --target; against your own service, switch the faults of your `ces wire` proxy)');
    try {
      const target = loadTarget(opts.target);
      const file = path.resolve(opts.target);
      return { target, file, stacks: [], files: [file], close: async () => {} };
    } catch (e) {
      if (e instanceof TargetError) throw new UsageError(e.message);
      throw e;
    }
  }
  return (await startEmbedded(opts)).ready;
}

/** Embedded stacks being started: the paths of their target files, known at once (each written whole when its stack is ready), and the whole. */
export interface EmbeddedStart { files: string[]; ready: Promise<ResolvedTarget> }

/**
 * Starts `stacks` embedded stacks (default 1), each with its own database, clock, deviations, fake connector and sink, so checks of
 * one worker never wait for another's clock moves. Resolves once the options are checked (a usage error rejects before anything
 * starts), with the target files' paths: `ces test` starts Playwright meanwhile, whose runner loads the suites while the stacks
 * start and whose workers wait for their file (suites/fixtures/current-target.ts targetFileReady).
 */
export async function startEmbedded(opts: { deviate?: string[]; seed?: number; stacks?: number; wire?: boolean; wireFault?: string }): Promise<EmbeddedStart> {
  // Each stack in its own worker thread: its own event loop, so one worker's checks never delay another stack's timers, and the
  // stacks use both cores. One CA for all of them: a check in any worker trusts every stack (shared vendor-check conversations).
  // Checked here, where the error is still an UnknownDeviationError (a usage error), before any thread starts. Loaded here, not at
  // the top: the reference implementation's modules cost start-up time to every `ces` command that never starts a stack.
  const { Deviations, UnknownDeviationError } = await import('../reference-impl/deviations.js');
  // SQLite not built (npm did not run better-sqlite3's build): one line with the command that builds it, before any thread starts.
  requireSqlite();
  try { new Deviations(opts.deviate ?? []); } catch (e) { if (e instanceof UnknownDeviationError) throw new UsageError(e.message); throw e; }
  if (opts.wireFault) {
    const { loadWireFaults } = await import('../wire/faults.js');
    if (!loadWireFaults().some((f) => f.id === opts.wireFault)) throw new UsageError(`unknown wire fault "${opts.wireFault}"; see \`ces selftest --list\` (fixtures/wire-faults.json)`);
  }
  const tls = generateTls();
  // The embedded target file holds live keys and passwords: it lives in a private temporary folder, never under reports/.
  const workDirs = Array.from({ length: Math.max(1, opts.stacks ?? 1) }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'ces-embedded-')));
  const files = workDirs.map((d) => path.join(d, 'target.json'));
  const ready = (async (): Promise<ResolvedTarget> => {
    const stacks: EmbeddedStack[] = [];
    // Those started (a failed one leaves a hole, which map skips), then every work folder.
    const close = async () => { await Promise.all(stacks.map((s) => s.close())); for (const d of workDirs) fs.rmSync(d, { recursive: true, force: true }); };
    const started = await Promise.allSettled(workDirs.map(async (workDir, i) => {
      const t = await startInThread<ReadyInfo>(new URL('../reference-impl/stack.js', import.meta.url), 'startStack', { deviate: opts.deviate ?? [], seed: opts.seed, workDir, tls, wire: opts.wire === true || !!opts.wireFault, ...(opts.wireFault ? { wireFault: opts.wireFault } : {}) });
      const stack: EmbeddedStack = { ready: t.ready, eventLoop: t.eventLoop, close: t.close };
      stacks[i] = stack;
      // Whole or absent: a Playwright worker may be waiting for it.
      writeFileAtomic(files[i]!, JSON.stringify(stack.ready, null, 2), 0o600);
      return stack;
    }));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await close();
      const e = failed.reason as Error;
      if (e instanceof UnknownDeviationError) throw new UsageError(e.message);
      throw e;
    }
    return { target: stacks[0]!.ready, file: files[0]!, stack: stacks[0], stacks, files, close };
  })();
  // Handled by whoever awaits it; never an unhandled rejection meanwhile (`ces test` first starts Playwright).
  ready.catch(() => {});
  return { files, ready };
}
