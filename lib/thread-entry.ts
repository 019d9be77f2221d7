// Inside a worker thread: starts one server of the harness (fake connector, webhook sink, a whole embedded stack) and closes it when the parent asks.
// First: the CommonJS packages the server loads come from the compile cache (a thread has a module system of its own).
import './compile-cache.cjs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { localLoopProbe } from './event-loop.js';

interface Started { url?: string; controlUrl?: string; ready?: unknown; close(): Promise<void> }
const require = createRequire(import.meta.url);
const { flushCompileCache } = require('./compile-cache.cjs') as { flushCompileCache(): void };
const { module, exportName, options } = workerData as { module: string; exportName: string; options: unknown };

try {
  // A CommonJS bundle (lib/thread-server.ts bundleOf) is required: import() would first scan its 4 MB for the names it exports
  // (Node's CommonJS lexer, about 0.25 CPU-s), more than compiling it takes.
  const mod = (module.endsWith('.cjs') ? require(fileURLToPath(module)) : await import(module)) as Record<string, (o: unknown) => Promise<Started>>;
  const server = await mod[exportName]!(options);
  // This thread's event loop, measured on the parent's request (`ces fuzz` reads the embedded service's own loop).
  const loop = localLoopProbe();
  parentPort!.on('message', (m: { type: string; seq?: number }) => {
    if (m.type === 'loop-start') { void loop.start().then(() => parentPort!.postMessage({ type: 'loop', seq: m.seq })); return; }
    if (m.type === 'loop-read') { void loop.read().then((delay) => parentPort!.postMessage({ type: 'loop', seq: m.seq, delay })); return; }
    if (m.type !== 'close') return;
    // What the thread compiled of its bundle (lib/thread-server.ts bundleOf) while it served, kept for the next: it is ended by
    // terminate(), which runs no exit handler.
    flushCompileCache();
    server.close().then(() => parentPort!.postMessage({ type: 'closed' }), (e: Error) => parentPort!.postMessage({ type: 'closed', error: e.message }));
  });
  parentPort!.postMessage({ type: 'ready', url: server.url, controlUrl: server.controlUrl, ready: server.ready });
} catch (e) {
  parentPort!.postMessage({ type: 'failed', error: (e as Error).stack ?? String(e) });
}
