// Webhook retries in real time (spec Events/Delivery, States and transitions, G3, G4): count, +10 s / +20 s, 20x stops, 30x/40x/timeout retried, dead letter.
import { test, expect, clauses, needs, TOLERANCE, PROMPT_MS, expectSignedJson, timeline, isUuid, type LogEntry, withClockLock } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';
import { under } from '../verdicts.js';

const [FIRST_RETRY_MS, SECOND_RETRY_MS] = LIMITS.webhookRetryDelaysMs as [number, number];
const within = (gap: number, want: number) => gap >= want - TOLERANCE.earlyMs && gap <= want + TOLERANCE.lateMs;
const tol = `tolerance -${TOLERANCE.earlyMs} ms / +${TOLERANCE.lateMs} ms`;

test.describe('webhook retries', needs('platform', 'sim', 'sink_url'), () => {

  test('503 answers: exactly two retries, +10 s then +20 s, same correlation id and eventId, new delivery id, no fourth attempt; a dead letter in the log',
    clauses('WH-RETRY-01', 'WH-RETRY-02', 'WH-RETRY-03', 'WH-HDR-02', 'WH-HDR-03', 'WH-HDR-04', 'WH-RETRY-07', 'WH-LOG-01'), async ({ hooks, target }) => under('WH-RETRY-01', async () => {
      await withClockLock(target, 'shared', async () => {
        const sub = await hooks.subscribe({ events: ['visitor.updated'] });
        const visitorId = await hooks.visitor(1);
        await hooks.plan(sub, [503, 503, 503], { visitorId }, 503);
        await hooks.updateVisitor(visitorId);
        // Watched on the wire until a fourth attempt at the spec's rhythm (+20 s after the third) would have arrived: the
        // service's own record (the log's dead state) is no evidence that none follows.
        const total = PROMPT_MS + FIRST_RETRY_MS + 2 * SECOND_RETRY_MS + 3 * TOLERANCE.lateMs;
        const first = await hooks.wait(sub, { 'body.visitorId': visitorId }, 1, PROMPT_MS);
        expect(first.deliveries.length, 'the first attempt arrives').toBe(1);
        const watchEnds = first.deliveries[0]!.arrivedAt + total - PROMPT_MS;
        const upTo = async (n: number) => (await hooks.wait(sub, { 'body.visitorId': visitorId }, n, Math.max(0, watchEnds - Date.now()))).deliveries;

        // The attempts' headers and rhythm, judged on the attempts seen so far (each assertion for any number of them).
        const judgeAttempts = (ds: typeof first.deliveries) => {
          const [a, b, c] = ds;
          under('WH-HDR-03', () => {
            expect(isUuid(a!.correlationId), 'X-Service-CorrelationId is a UUID').toBe(true);
            expect(ds.map((d) => d.correlationId), 'every attempt keeps the correlation id').toEqual(ds.map(() => a!.correlationId));
          });
          under('WH-HDR-02', () => {
            for (const d of ds) expect(isUuid(d.deliveryId), `X-Service-Delivery is a UUID (got ${d.deliveryId})`).toBe(true);
            expect(new Set(ds.map((d) => d.deliveryId)).size, 'each attempt has its own X-Service-Delivery').toBe(ds.length);
          });
          under('WH-HDR-04', () => expect(ds.map((d) => d.eventId), 'every attempt carries the same event (eventId in the body)').toEqual(ds.map(() => a!.eventId)));
          if (b) {
            const gap1 = b.arrivedAt - a!.arrivedAt;
            under('WH-RETRY-02', () => expect(within(gap1, FIRST_RETRY_MS), `retry 1 came ${gap1} ms after the first attempt; expected ${FIRST_RETRY_MS} ms (${tol})`).toBe(true));
          }
          if (c) {
            const gap2 = c.arrivedAt - b!.arrivedAt;
            under('WH-RETRY-03', () => expect(within(gap2, SECOND_RETRY_MS), `retry 2 came ${gap2} ms after retry 1; expected ${SECOND_RETRY_MS} ms (${tol})`).toBe(true));
          }
        };
        // Attempt by attempt: a fault already on the wire (a header, a retry's time) is judged when it shows, not after the whole
        // watch (under `ces selftest` a first retry at +12 s is caught then, not at +55 s). Each such verdict is one the whole
        // watch would give as well; where the count is wrong too (a first retry seen only at +30 s), the clause whose fault
        // showed first is the one reported.
        for (const n of [2, 3]) {
          const seen = await upTo(n);
          if (seen.length < n) break;
          // Every clause judged here is MUST: a fault ends the check, with the attempts seen so far as its evidence.
          try { judgeAttempts(seen); } catch (e) { await timeline('visitor.updated answered 503, 503, 503 (so far)', seen); throw e; }
        }
        const ds = await upTo(4);
        await timeline('visitor.updated answered 503, 503, 503', ds);
        expect(ds.length, `three attempts arrive (first call and two retries) and no fourth within ${SECOND_RETRY_MS + TOLERANCE.lateMs} ms of the third (${ds.map((d) => d.arrivedAt - ds[0]!.arrivedAt).join(', ')} ms after the first)`).toBe(3);
        for (const d of ds) expectSignedJson(d, sub.secret);
        judgeAttempts(ds);
        const a = ds[0]!;

        // The service's own record (G17): the third failure ends the event, dead in the log with its three attempts.
        let entry: Awaited<ReturnType<typeof hooks.log>>[number] | undefined;
        await under('WH-RETRY-07', () => expect.poll(async () => {
          entry = (await hooks.log(sub, { correlationId: a.correlationId! }))[0];
          return entry?.state;
        }, { message: 'the delivery log shows the event dead (dead letter) after the third failed attempt', timeout: PROMPT_MS }).toBe('dead'));
        under('WH-LOG-01', () => {
          expect(entry?.attempts.map((x) => x.status), 'the log lists each attempt with its answer').toEqual([503, 503, 503]);
          expect(entry!.attempts.map((x) => x.deliveryId), 'the log names the delivery ids the sink received').toEqual(ds.map((d) => d.deliveryId));
          expect(entry!.nextAttemptAt, 'no fourth attempt is scheduled').toBeNull();
          for (const x of entry!.attempts) expect(typeof x.durationMs === 'number' && x.startedAt && x.endedAt, 'each attempt has its timings').toBeTruthy();
        });
      });
    }));

  test('a 20x answer stops the delivery: no retry', clauses('WH-RETRY-04', 'WH-LOG-01'), async ({ hooks, target }) => under('WH-RETRY-04', async () => {
    await withClockLock(target, 'shared', async () => {
      const sub = await hooks.subscribe({ events: ['visitor.updated'] });
      const visitorId = await hooks.visitor(2);
      await hooks.plan(sub, [200], { visitorId }, 200);
      await hooks.updateVisitor(visitorId);
      const { deliveries } = await hooks.wait(sub, { 'body.visitorId': visitorId }, 1, PROMPT_MS);
      expect(deliveries.length, 'the event arrives').toBe(1);
      const correlationId = deliveries[0]!.correlationId!;
      await under('WH-LOG-01', () => expect.poll(async () => (await hooks.log(sub, { correlationId }))[0]?.state,
        { message: 'after a 200 answer the log shows the event delivered, with no retry pending', timeout: PROMPT_MS }).toBe('delivered'));
      const again = await hooks.wait(sub, { correlationId }, 2, FIRST_RETRY_MS + TOLERANCE.lateMs);
      await timeline('visitor.updated answered 200', again.deliveries);
      expect(again.deliveries.length, `no retry within ${FIRST_RETRY_MS + TOLERANCE.lateMs} ms of a 200 answer`).toBe(1);
    });
  }));

  for (const [status, clause, why] of [[404, 'WH-RETRY-01', 'a 40x answer is retried'], [302, 'WH-RETRY-05', 'a 30x answer counts as a failure and is retried']] as const) {
    test(`${why} (${status}, then 200) 10 s later`, clauses(clause), async ({ hooks, target }) => {
      await withClockLock(target, 'shared', async () => {
        const sub = await hooks.subscribe({ events: ['visitor.updated'] });
        const visitorId = await hooks.visitor(status === 404 ? 3 : 4);
        await hooks.plan(sub, [status, 200], { visitorId }, 200);
        await hooks.updateVisitor(visitorId);
        const { deliveries: ds } = await hooks.wait(sub, { 'body.visitorId': visitorId }, 2, PROMPT_MS + FIRST_RETRY_MS + TOLERANCE.lateMs);
        await timeline(`visitor.updated answered ${status}, 200`, ds);
        expect(ds.length, `after a ${status} answer a retry arrives`).toBe(2);
        const gap = ds[1]!.arrivedAt - ds[0]!.arrivedAt;
        expect(within(gap, FIRST_RETRY_MS), `the retry came ${gap} ms after the ${status}; expected ${FIRST_RETRY_MS} ms (${tol})`).toBe(true);
        expect(ds[1]!.correlationId, 'same correlation id').toBe(ds[0]!.correlationId);
      });
    });
  }

  test('a callback that does not complete the connection within 1 s has failed and is retried 10 s later', clauses('WH-RETRY-08', 'WH-LOG-01'), async ({ hooks, api, target }) => under('WH-RETRY-08', async () => {
    await withClockLock(target, 'shared', async () => {
      // A callback address that accepts TCP and never answers the TLS handshake: the wire evidence is its connections.
      const stall = await hooks.sink.stall();
      expect(stall.status, stall.text).toBe(201);
      const sub = await hooks.subscribe({ events: ['visitor.updated'], url: stall.json.url });
      const visitorId = await hooks.visitor(11);
      await hooks.updateVisitor(visitorId);
      const connectMs = LIMITS.webhookConnectTimeoutMs;
      const want = connectMs + FIRST_RETRY_MS;
      const { connections } = await hooks.sink.stallConnections(stall.json.id, 2, PROMPT_MS + want + TOLERANCE.lateMs);
      expect(connections.length, 'the attempt to a stalled callback fails and a retry connects again').toBeGreaterThanOrEqual(2);
      const gap = connections[1]! - connections[0]!;
      expect(within(gap, want), `the retry connected ${gap} ms after the first attempt; expected ${connectMs} ms connect timeout + ${FIRST_RETRY_MS} ms (${tol})`).toBe(true);
      // How long the service waited and what it recorded are in its own record (G17's delivery log).
      let entry: LogEntry | undefined;
      await under('WH-LOG-01', async () => {
        await expect.poll(async () => {
          entry = (await hooks.log(sub)).find((e) => e.payload?.visitorId === visitorId);
          return entry?.attempts.filter((a) => a.endedAt).length ?? 0;
        }, { message: 'the log lists the failed attempt', timeout: PROMPT_MS }).toBeGreaterThanOrEqual(1);
        const a = entry!.attempts[0]!;
        expect(a.status, 'no answer status for a connect timeout').toBeNull();
        const waited = a.durationMs ?? 0;
        expect(waited >= connectMs - TOLERANCE.earlyMs && waited <= connectMs + TOLERANCE.lateMs, `the service waited ${waited} ms for the connection; expected ${connectMs} ms (${tol})`).toBe(true);
      });
    });
  }));

  test('a connection refused is retried like a 50x, 10 s later', clauses('WH-RETRY-09'), async ({ hooks, target }) => {
    await withClockLock(target, 'shared', async () => {
      const refused = new URL(hooks.sinkUrl);
      refused.port = '1';
      const sub = await hooks.subscribe({ events: ['visitor.updated'], url: `${refused.origin}/refused` });
      const visitorId = await hooks.visitor(12);
      await hooks.updateVisitor(visitorId);
      let entry: LogEntry | undefined;
      await expect.poll(async () => {
        entry = (await hooks.log(sub)).find((e) => e.payload?.visitorId === visitorId);
        return entry?.attempts.length ?? 0;
      }, { message: 'a retry follows the refused connection', timeout: PROMPT_MS + FIRST_RETRY_MS + TOLERANCE.lateMs }).toBeGreaterThanOrEqual(2);
      const [a, b] = entry!.attempts as [LogEntry['attempts'][0], LogEntry['attempts'][0]];
      expect(a.error ?? '', 'the log names the network error').not.toBe('');
      const gap = Date.parse(b.startedAt) - Date.parse(a.endedAt!);
      expect(within(gap, FIRST_RETRY_MS), `the retry started ${gap} ms after the refused attempt; expected ${FIRST_RETRY_MS} ms (${tol})`).toBe(true);
    });
  });

  test('a callback that does not answer within 30 s has failed and is retried 10 s later', clauses('WH-RETRY-06', 'WH-LOG-01'), async ({ hooks, target }) => under('WH-RETRY-06', async () => {
    await withClockLock(target, 'shared', async () => {
      const sub = await hooks.subscribe({ events: ['visitor.updated'] });
      const visitorId = await hooks.visitor(5);
      const answerMs = LIMITS.webhookAnswerTimeoutMs;
      // The first answer would come 5 s after the answer timeout: the service must have given up by then.
      await hooks.plan(sub, [{ status: 200, delayMs: answerMs + 5_000 }], { visitorId }, 200);
      await hooks.updateVisitor(visitorId);
      const want = answerMs + FIRST_RETRY_MS;
      const { deliveries: ds } = await hooks.wait(sub, { 'body.visitorId': visitorId }, 2, PROMPT_MS + want + TOLERANCE.lateMs);
      await timeline('visitor.updated, first answer held past the 30 s answer timeout', ds);
      expect(ds.length, `a retry follows an answer held past ${answerMs} ms`).toBe(2);
      const gap = ds[1]!.arrivedAt - ds[0]!.arrivedAt;
      expect(within(gap, want), `the retry came ${gap} ms after the first call; expected ${answerMs} ms answer timeout + ${FIRST_RETRY_MS} ms (${tol})`).toBe(true);
      // How long the service waited is in its own record (G17's delivery log).
      const entry = (await hooks.log(sub, { correlationId: ds[0]!.correlationId! }))[0];
      const first = entry?.attempts[0];
      under('WH-LOG-01', () => {
        expect(first?.status ?? null, 'the timed-out attempt has no answer status in the log').toBeNull();
        expect(Math.abs((first?.durationMs ?? 0) - answerMs), `the service waited ${first?.durationMs} ms for the answer; expected ${answerMs} ms (tolerance ${TOLERANCE.lateMs} ms)`).toBeLessThanOrEqual(TOLERANCE.lateMs);
      });
    });
  }));
});
