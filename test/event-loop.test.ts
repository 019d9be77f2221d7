// The event loop's longest block is measured in the thread that blocks (lib/event-loop.ts), also across a worker thread (`ces fuzz`
// reads the embedded service's own loop this way, not the fuzzer's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localLoopProbe } from '../lib/event-loop.js';
import { startInThread } from '../lib/thread-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a block of 200 ms in this thread is measured as one of at least 150 ms', async () => {
  const probe = localLoopProbe();
  await probe.start();
  await sleep(30);
  const end = Date.now() + 200;
  while (Date.now() < end) { /* a block on purpose */ }
  await sleep(30);
  const d = await probe.read();
  assert.ok(d.maxMs >= 150, `measured ${d.maxMs} ms`);
});

test("a worker thread's block is read from the thread's own probe, through messages", async () => {
  const t = await startInThread(new URL('./fixtures/busy-thread.js', import.meta.url), 'startBusy', { blockMs: 200, everyMs: 400 });
  try {
    await t.eventLoop.start();
    await sleep(900);
    const d = await t.eventLoop.read();
    assert.ok(d.maxMs >= 150, `the thread's loop: measured ${d.maxMs} ms`);
  } finally {
    await t.close();
  }
});
