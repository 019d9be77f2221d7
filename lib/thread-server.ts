// Starts a server of the harness (the partners of a stack, a whole embedded stack) in its own worker thread: its own event loop, so the service
// under test never shares a loop with its partners (their load does not delay its timers, nor its load their answers).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LoopDelay, LoopProbe } from './event-loop.js';
import { CODE, COMPILED } from './paths.js';

export interface ThreadServer<R = unknown> {
  url: string; controlUrl: string;
  /** What the started object calls `ready` (a stack's ready info), cloned across the thread boundary. */
  ready: R;
  /** The thread's own event loop (its delays from start() to read()). */
  eventLoop: LoopProbe;
  close(): Promise<void>;
}

/** `module` is a file URL (name it `x.js`: the compiled module, or its `.ts` source under tsx); `exportName(options)` must resolve to `{ url, controlUrl?, close() }`; options must be cloneable. */
export function startInThread<R = unknown>(module: URL, exportName: string, options: object): Promise<ThreadServer<R>> {
  const entry = new URL('./thread-entry.js', import.meta.url);
  const workerData = { entry: entry.href, module: bundleOf(module).href, exportName, options };
  // Compiled JavaScript starts as is; from the TypeScript sources (tests under tsx), the thread first loads tsx, whose loader hooks
  // are per thread (thread-boot.mjs), and tsx finds each `.js` module's `.ts` source.
  const worker = COMPILED ? new Worker(entry, { workerData }) : new Worker(new URL('./thread-boot.mjs', import.meta.url), { workerData });
  return new Promise((resolve, reject) => {
    const early = (e: Error) => reject(e);
    worker.once('error', early);
    worker.once('exit', (code) => reject(new Error(`${exportName}: its worker thread exited (code ${code}) before listening`)));
    worker.once('message', (m: { type: string; url: string; controlUrl?: string; ready?: unknown; error?: string }) => {
      if (m.type !== 'ready') { void worker.terminate(); reject(new Error(`${exportName} failed in its worker thread: ${m.error}`)); return; }
      worker.removeAllListeners('exit');
      worker.off('error', early);
      worker.on('error', (e) => console.error(`${exportName} (worker thread) crashed: ${e.stack ?? e.message}`));
      // A forgotten close must never keep a process alive.
      worker.unref();
      let closing: Promise<void> | undefined;
      let seq = 0;
      // One question to the thread, answered by the message that carries its sequence number.
      const ask = <T>(type: string) => new Promise<T>((answer) => {
        const mine = ++seq;
        const on = (r: { type: string; seq?: number; delay?: LoopDelay }) => { if (r.type === 'loop' && r.seq === mine) { worker.off('message', on); answer(r.delay as T); } };
        worker.on('message', on);
        worker.postMessage({ type, seq: mine });
      });
      resolve({
        eventLoop: { start: () => ask<void>('loop-start'), read: () => ask<LoopDelay>('loop-read') },
        url: m.url,
        controlUrl: m.controlUrl ?? `${m.url}/_control`,
        ready: m.ready as R,
        close: () => (closing ??= new Promise<void>((done) => {
          const t = setTimeout(() => { void worker.terminate().then(() => done()); }, 5_000);
          worker.on('message', (r: { type: string }) => { if (r.type !== 'closed') return; clearTimeout(t); void worker.terminate().then(() => done()); });
          worker.once('exit', () => { clearTimeout(t); done(); });
          worker.postMessage({ type: 'close' });
        })),
      });
    });
  });
}

/**
 * The module's bundle with its packages, when the build wrote one (scripts/build.mjs THREAD_BUNDLES: dist/bundles/<its path>.cjs,
 * in a checkout): a thread loads one file instead of some 600 modules. Else the module itself (the npm package, the sources).
 */
export function bundleOf(module: URL): URL {
  if (!COMPILED || module.protocol !== 'file:') return module;
  const rel = path.relative(CODE, fileURLToPath(module));
  if (rel.startsWith('..') || !rel.endsWith('.js')) return module;
  const bundle = path.join(CODE, 'bundles', rel.replace(/\.js$/, '.cjs'));
  return fs.existsSync(bundle) ? pathToFileURL(bundle) : module;
}
