// Inside a worker thread: starts one server of the harness (fake connector, webhook sink, a whole embedded stack) and closes it when the parent asks.
// First: the CommonJS packages the server loads come from the compile cache (a thread has a module system of its own).
import './compile-cache.cjs';
import { parentPort, workerData } from 'node:worker_threads';
import { localLoopProbe } from './event-loop.js';

interface Started { url?: string; controlUrl?: string; ready?: unknown; close(): Promise<void> }
const { module, exportName, options } = workerData as { module: string; exportName: string; options: unknown };

try {
  const mod = (await import(module)) as Record<string, (o: unknown) => Promise<Started>>;
  const server = await mod[exportName]!(options);
  // This thread's event loop, measured on the parent's request (`ces fuzz` reads the embedded service's own loop).
  const loop = localLoopProbe();
  parentPort!.on('message', (m: { type: string; seq?: number }) => {
    if (m.type === 'loop-start') { void loop.start().then(() => parentPort!.postMessage({ type: 'loop', seq: m.seq })); return; }
    if (m.type === 'loop-read') { void loop.read().then((delay) => parentPort!.postMessage({ type: 'loop', seq: m.seq, delay })); return; }
    if (m.type !== 'close') return;
    server.close().then(() => parentPort!.postMessage({ type: 'closed' }), (e: Error) => parentPort!.postMessage({ type: 'closed', error: e.message }));
  });
  parentPort!.postMessage({ type: 'ready', url: server.url, controlUrl: server.controlUrl, ready: server.ready });
} catch (e) {
  parentPort!.postMessage({ type: 'failed', error: (e as Error).stack ?? String(e) });
}
