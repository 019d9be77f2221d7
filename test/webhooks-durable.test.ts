// The webhook outbox survives SIGKILL: a service killed with retries pending, restarted on the same database, delivers every attempt on time, once.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LIMITS } from '../lib/limits.js';
import { startWebhookSink } from '../webhook-sink/server.js';
import { generateTls } from '../lib/tls.js';
import { bundle, compileCacheEntry, killLife, startLife } from './fixtures/bundle.js';
import type { DurableChildConfig } from './fixtures/durable-child.js';

/** One life of the service: its own module, bundled for the lives of each case. */
const CHILD = new URL('./fixtures/durable-child.js', import.meta.url);
const SECRET = 'durable-test-secret';
/** Stated tolerance of the retry moments measured at the sink. */
const EARLY_MS = 500;
const LATE_MS = 2_500;

// Every life starts from its module bundled once (test/fixtures/bundle.ts: about 0.5 CPU-s less per start than `--import tsx`).
// A failed build fails each case with esbuild's errors when it starts its first life. The lives' compile cache is this file's own
// (they read CES_COMPILE_CACHE as they start), so that what bundle() leaves there is seen apart.
const setting = process.env.CES_COMPILE_CACHE;
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-durable-cache-'));
if (setting !== 'off') process.env.CES_COMPILE_CACHE = cacheDir;
const service = bundle(CHILD);
service.catch(() => undefined);
after(async () => {
  (await service.catch(() => undefined))?.remove();
  if (setting === undefined) delete process.env.CES_COMPILE_CACHE; else process.env.CES_COMPILE_CACHE = setting;
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

test("the bundle's compiled code is in the compile cache before the first life (lives killed within seconds never write it)", { skip: setting === 'off' ? 'CES_COMPILE_CACHE=off' : false }, async () => {
  const { file } = await service;
  const entry = compileCacheEntry(cacheDir, file);
  assert.ok(fs.existsSync(entry), `${path.basename(entry)} in ${cacheDir}: ${fs.readdirSync(cacheDir).join(', ')}`);
});

const life = async (cfg: Omit<DurableChildConfig, 'secret'>): Promise<ChildProcess> =>
  (await startLife((await service).argv, { CES_WH_DURABLE_CHILD: JSON.stringify({ ...cfg, secret: SECRET } satisfies DurableChildConfig) })).child;
/** Waits (deadline 5 s) until the service has recorded the answer of attempt n, so the kill lands while the next retry is pending. */
const settled = async (db: string, n: number) => {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const store = new Database(db, { readonly: true });
    const row = store.prepare('SELECT ended_at FROM webhook_attempts WHERE attempt = ?').get(n) as { ended_at: number | null } | undefined;
    store.close();
    if (row?.ended_at) return;
    if (Date.now() > deadline) throw new Error(`attempt ${n} was not recorded within 5 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** One case's own sink, database and service lives; `close()` kills what still runs and removes them. */
const openCase = async (hookPath: string) => {
  const tls = generateTls();
  const sink = await startWebhookSink({ tls: tls.server, secret: SECRET });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-durable-'));
  const db = path.join(dir, 'service.db');
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { sink, db, hookPath, cfg: { db, ca: tls.ca.cert, hookUrl: sink.url + hookPath }, children, close };
};

// The two cases have their own sink, database and service: they wait for their retries side by side.
describe('the webhook outbox across SIGKILL', { concurrency: 2 }, () => {
  test('SIGKILL with retries pending: after each restart the next attempt comes on time, same correlation id, nothing lost or repeated', { timeout: 120_000 }, async () => {
    const { sink, db, hookPath, cfg, children, close } = await openCase('/hooks/durable');
    sink.plan({ path: hookPath }, [503, 503, 200]);
    try {
      // Life 1: the event is queued and the first attempt gets 503; killed while retry 1 is pending.
      children.push(await life({ ...cfg, trigger: true }));
      const w1 = await sink.waitFor({ path: hookPath }, 1, 10_000);
      assert.equal(w1.deliveries.length, 1, 'the first attempt arrives');
      await settled(db, 1);
      await killLife(children[0]!);
      // Life 2: restarted on the same database; retry 1 must come 10 s after the first attempt; killed while retry 2 is pending.
      children.push(await life({ ...cfg, trigger: false }));
      const w2 = await sink.waitFor({ path: hookPath }, 2, LIMITS.webhookRetryDelaysMs[0]! + 10_000);
      assert.equal(w2.deliveries.length, 2, 'retry 1 arrives after the restart');
      await settled(db, 2);
      await killLife(children[1]!);
      // Life 3: retry 2 must come 20 s after retry 1 and is answered 200.
      children.push(await life({ ...cfg, trigger: false }));
      const w3 = await sink.waitFor({ path: hookPath }, 3, LIMITS.webhookRetryDelaysMs[1]! + 10_000);
      assert.equal(w3.deliveries.length, 3, 'retry 2 arrives after the second restart');
      // Nothing more may come: the 200 ended the event.
      const extra = await sink.waitFor({ path: hookPath }, 4, LATE_MS);
      assert.equal(extra.deliveries.length, 3, 'no attempt beyond the spec\'s three');

      const [a, b, c] = w3.deliveries as [typeof w3.deliveries[0], typeof w3.deliveries[0], typeof w3.deliveries[0]];
      assert.deepEqual(w3.deliveries.map((d) => d.answer.status), [503, 503, 200]);
      assert.ok(a.correlationId && b.correlationId === a.correlationId && c.correlationId === a.correlationId, 'same X-Service-CorrelationId across the restarts');
      assert.equal(new Set(w3.deliveries.map((d) => d.deliveryId)).size, 3, 'a new X-Service-Delivery per attempt');
      assert.equal(new Set(w3.deliveries.map((d) => d.body)).size, 1, 'the same event body every time');
      for (const d of w3.deliveries) assert.deepEqual(d.verdicts.signature, { ok: true }, 'every attempt is signed');
      const [d1, d2] = LIMITS.webhookRetryDelaysMs as [number, number];
      const g1 = b.arrivedAt - a.arrivedAt;
      const g2 = c.arrivedAt - b.arrivedAt;
      assert.ok(g1 >= d1 - EARLY_MS && g1 <= d1 + LATE_MS, `retry 1 came ${g1} ms after the first attempt; expected ${d1} ms (tolerance -${EARLY_MS}/+${LATE_MS} ms)`);
      assert.ok(g2 >= d2 - EARLY_MS && g2 <= d2 + LATE_MS, `retry 2 came ${g2} ms after retry 1; expected ${d2} ms (tolerance -${EARLY_MS}/+${LATE_MS} ms)`);

      await killLife(children[2]!);
      const store = new Database(db, { readonly: true });
      const rows = store.prepare('SELECT * FROM webhook_deliveries').all() as Array<{ id: number; state: string; correlation_id: string }>;
      assert.equal(rows.length, 1, 'one delivery row for one event and one subscription');
      assert.equal(rows[0]!.state, 'delivered');
      assert.equal(rows[0]!.correlation_id, a.correlationId);
      const attempts = store.prepare('SELECT attempt, status, delivery_id FROM webhook_attempts WHERE delivery = ? ORDER BY attempt').all(rows[0]!.id) as Array<{ attempt: number; status: number; delivery_id: string }>;
      assert.deepEqual(attempts.map((x) => [x.attempt, x.status]), [[1, 503], [2, 503], [3, 200]], 'the delivery log holds each attempt once');
      assert.deepEqual(attempts.map((x) => x.delivery_id), w3.deliveries.map((d) => d.deliveryId));
      store.close();
    } finally {
      await close();
    }
  });

  test('SIGKILL during an attempt (G29): the attempt is repeated at restart, is not one of the retries, and a 20x event is never dead', { timeout: 90_000 }, async () => {
    const { sink, db, hookPath, cfg, children, close } = await openCase('/hooks/interrupted');
    // 503, 503, then the third (last) attempt is answered 200 after 5 s: the service is killed while it waits for that answer.
    // Counted as a failed attempt (the old rule) it would make the event dead; G29 repeats it instead.
    sink.plan({ path: hookPath }, [503, 503, { status: 200, delayMs: 5_000 }], 200);
    try {
      children.push(await life({ ...cfg, trigger: true }));
      const w3 = await sink.waitFor({ path: hookPath }, 3, LIMITS.webhookRetryDelaysMs[0]! + LIMITS.webhookRetryDelaysMs[1]! + 10_000);
      assert.equal(w3.deliveries.length, 3, 'the first attempt and both retries arrive');
      await killLife(children[0]!);
      const killedAt = Date.now();
      children.push(await life({ ...cfg, trigger: false }));
      const w = await sink.waitFor({ path: hookPath }, 4, 10_000);
      assert.equal(w.deliveries.length, 4, 'the interrupted attempt is repeated after the restart');
      const [a, , c, d] = w.deliveries as [typeof w.deliveries[0], typeof w.deliveries[0], typeof w.deliveries[0], typeof w.deliveries[0]];
      assert.ok(d.arrivedAt - killedAt < LIMITS.webhookRetryDelaysMs[0]!, `repeated at restart (${d.arrivedAt - killedAt} ms after the kill), not after a retry delay`);
      assert.equal(d.correlationId, a.correlationId, 'same correlation id');
      assert.equal(d.eventId, c.eventId, 'same event id: the receiver may see the event twice (at-least-once)');
      assert.notEqual(d.deliveryId, c.deliveryId, 'new delivery id');
      assert.equal(d.answer.status, 200);
      assert.equal((await sink.waitFor({ path: hookPath }, 5, LATE_MS)).deliveries.length, 4, 'nothing more after the 200');
      await killLife(children[1]!);
      const store = new Database(db, { readonly: true });
      const row = store.prepare('SELECT state FROM webhook_deliveries').get() as { state: string };
      const attempts = store.prepare('SELECT attempt, status FROM webhook_attempts ORDER BY attempt').all() as Array<{ attempt: number; status: number | null }>;
      const cut = store.prepare('SELECT attempt FROM webhook_interruptions').all() as Array<{ attempt: number }>;
      store.close();
      assert.equal(row.state, 'delivered', 'an event answered 20x is never dead');
      assert.deepEqual(attempts.map((x) => [x.attempt, x.status]), [[1, 503], [2, 503], [3, 200]], "G4's three attempts; the repeat took the number of the interrupted one");
      assert.deepEqual(cut.map((x) => x.attempt), [3], 'the interrupted attempt is recorded apart');
    } finally {
      await close();
    }
  });
});
