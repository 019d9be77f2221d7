// Starts a server of the harness (fake connector, webhook sink) in its own worker thread: its own event loop, so the service
// under test never shares a loop with its partners (their load does not delay its timers, nor its load their answers).
import { Worker } from 'node:worker_threads';

export interface ThreadServer<R = unknown> {
  url: string; controlUrl: string;
  /** What the started object calls `ready` (a stack's ready info), cloned across the thread boundary. */
  ready: R;
  close(): Promise<void>;
}

/** `module` is a file URL; `exportName(options)` must resolve to `{ url, controlUrl?, close() }`; options must be cloneable. */
export function startInThread<R = unknown>(module: URL, exportName: string, options: object): Promise<ThreadServer<R>> {
  const worker = new Worker(new URL('./thread-boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./thread-entry.ts', import.meta.url).href, module: module.href, exportName, options },
  });
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
      resolve({
        url: m.url,
        controlUrl: m.controlUrl ?? `${m.url}/_control`,
        ready: m.ready as R,
        close: () => (closing ??= new Promise<void>((done) => {
          const t = setTimeout(() => { void worker.terminate().then(() => done()); }, 5_000);
          worker.once('message', () => { clearTimeout(t); void worker.terminate().then(() => done()); });
          worker.once('exit', () => { clearTimeout(t); done(); });
          worker.postMessage({ type: 'close' });
        })),
      });
    });
  });
}
