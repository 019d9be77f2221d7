// Inside a worker thread: starts one server of the harness (fake connector, webhook sink, a whole embedded stack) and closes it when the parent asks.
import { parentPort, workerData } from 'node:worker_threads';

interface Started { url?: string; controlUrl?: string; ready?: unknown; close(): Promise<void> }
const { module, exportName, options } = workerData as { module: string; exportName: string; options: unknown };

try {
  const mod = (await import(module)) as Record<string, (o: unknown) => Promise<Started>>;
  const server = await mod[exportName]!(options);
  parentPort!.on('message', (m: { type: string }) => {
    if (m.type !== 'close') return;
    server.close().then(() => parentPort!.postMessage({ type: 'closed' }), (e: Error) => parentPort!.postMessage({ type: 'closed', error: e.message }));
  });
  parentPort!.postMessage({ type: 'ready', url: server.url, controlUrl: server.controlUrl, ready: server.ready });
} catch (e) {
  parentPort!.postMessage({ type: 'failed', error: (e as Error).stack ?? String(e) });
}
