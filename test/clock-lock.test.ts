// The suites' clock lock: a clock move waits for real-time checks of other workers, real-time checks wait for a move, re-entry works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { withClockLock } from '../suites/clock-lock.js';

/** Another worker process holding the lock in `mode` for `ms`; resolves once it holds it, with a promise of its end. */
function otherWorker(baseUrl: string, mode: 'shared' | 'exclusive', ms: number): Promise<{ done: Promise<number> }> {
  const code = `import { withClockLock } from ${JSON.stringify(path.join(ROOT, 'suites', 'clock-lock.ts'))};
    await withClockLock({ base_url: ${JSON.stringify(baseUrl)} }, '${mode}', async () => { console.log('held'); await new Promise((r) => setTimeout(r, ${ms})); });
    console.log('released ' + Date.now());`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const done = new Promise<number>((resolve) => child.on('exit', () => resolve(Number(/released (\d+)/.exec(out)?.[1] ?? NaN))));
  return new Promise((resolve) => child.stdout.on('data', (d) => { out += d; if (out.includes('held')) resolve({ done }); }));
}

const base = () => `https://lock-test-${process.pid}-${Math.random()}`;

test('a clock move (exclusive) waits until another worker\'s real-time check (shared) ends', async () => {
  const url = base();
  const other = await otherWorker(url, 'shared', 1_500);
  const at = await withClockLock({ base_url: url }, 'exclusive', async () => Date.now());
  const released = await other.done;
  assert.ok(at >= released, `the move ran at ${at}, before the real-time check released at ${released}`);
});

test('a real-time check (shared) waits until another worker\'s clock move (exclusive) ends', async () => {
  const url = base();
  const other = await otherWorker(url, 'exclusive', 1_500);
  const at = await withClockLock({ base_url: url }, 'shared', async () => Date.now());
  const released = await other.done;
  assert.ok(at >= released, `the real-time check ran at ${at}, before the move released at ${released}`);
});

test('shared holders run together; nested requests in one worker do not wait for themselves', async () => {
  const url = base();
  const other = await otherWorker(url, 'shared', 1_500);
  const t0 = Date.now();
  await withClockLock({ base_url: url }, 'shared', async () => {
    await withClockLock({ base_url: url }, 'shared', async () => {});
  });
  assert.ok(Date.now() - t0 < 1_000, 'a second shared holder does not wait for the first');
  await other.done;
  await withClockLock({ base_url: url }, 'exclusive', async () => {
    await withClockLock({ base_url: url }, 'exclusive', async () => {});
    await withClockLock({ base_url: url }, 'shared', async () => {});
  });
  await assert.rejects(withClockLock({ base_url: url }, 'shared', () => withClockLock({ base_url: url }, 'exclusive', async () => {})), /cannot move the service clock/);
});
