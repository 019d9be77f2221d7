// Webhook delivery (spec Events/Delivery, Payload shapes, G1): headers, signature, old-event payload shape, clientId per account, independent subscribers.
import { test, expect, clauses, needs, PROMPT_MS, expectSignedJson, isUuid, clientIdOf, timeline } from './helpers.js';
import { expectPayload, under } from '../verdicts.js';

const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

test.describe('webhook delivery', needs('platform', 'sim', 'sink_url'), () => {

  test('visitor.updated arrives as a signed JSON POST with the spec headers and exactly its payload shape, for each client',
    clauses('WH-HDR-01', 'WH-HDR-02', 'WH-HDR-03', 'WH-SIG-01', 'WH-EVT-07', 'WH-FMT-02', 'WH-FMT-03', 'WH-FMT-04'), async ({ hooks, target }) => {
      const keys = target.api_keys.length ? target.api_keys.map((k) => k.key) : [target.api_key];
      for (const key of keys) {
        await test.step(`client ${clientIdOf(target, key)}`, async () => {
          const sub = await hooks.subscribe({ events: ['visitor.updated'], key });
          const visitorId = await hooks.visitor(6, key);
          await hooks.updateVisitor(visitorId, key);
          const { deliveries } = await hooks.wait(sub, { 'body.visitorId': visitorId }, 1, PROMPT_MS);
          under('WH-EVT-07', () => expect(deliveries.length, 'visitor.updated arrives after the visitor is edited').toBe(1));
          const d = deliveries[0]!;
          await timeline('visitor.updated', deliveries);
          expectSignedJson(d, sub.secret);
          under('WH-HDR-02', () => expect(isUuid(d.headers['x-service-delivery']), `X-Service-Delivery is a UUID (got ${d.headers['x-service-delivery']})`).toBe(true));
          under('WH-HDR-03', () => expect(isUuid(d.headers['x-service-correlationid']), `X-Service-CorrelationId is a UUID (got ${d.headers['x-service-correlationid']})`).toBe(true));
          // The clauses of single fields first, then the whole shape (WH-FMT-04), which the same field would fail too.
          const p = d.json;
          under('WH-FMT-03', () => {
            expect(p.eventType, 'eventType names the kind').toBe('visitor.updated');
            expect(isUuid(p.eventId), 'eventId is a UUID').toBe(true);
            expect(typeof p.platform, 'platform is a String').toBe('string');
            expect(p.clientId, 'clientId is the integer id of the account that owns the subscription').toBe(clientIdOf(target, key));
          });
          under('WH-EVT-07', () => {
            expect(p.visitorId, 'visitorId is the visitor unique id').toBe(visitorId);
            expect(Number.isInteger(p.operatorId), 'operatorId is an Integer').toBe(true);
          });
          under('WH-FMT-02', () => {
            expect(p.createdAt, 'old events use an offset timestamp').toMatch(OFFSET_TIME);
            expect(p.sentAt, 'old events use an offset timestamp').toMatch(OFFSET_TIME);
          });
          under('WH-FMT-04', () => expectPayload('webhooks/visitor.updated.json', d.json));
        });
      }
    });

  test('a slow subscriber never delays another subscriber', clauses('WH-DLV-01'), async ({ hooks }) => {
    const holdMs = 8_000;
    const promptMs = 3_000;
    const slow = await hooks.subscribe({ events: ['visitor.updated'] });
    const fast = await hooks.subscribe({ events: ['visitor.updated'] });
    const visitorId = await hooks.visitor(7);
    await hooks.plan(slow, [{ status: 200, delayMs: holdMs }], { visitorId }, 200);
    await hooks.updateVisitor(visitorId);
    const first = await hooks.wait(slow, { 'body.visitorId': visitorId }, 1, PROMPT_MS);
    expect(first.deliveries.length, 'the slow subscriber receives the first event').toBe(1);
    // While the slow subscriber holds its answer, a second event must reach the fast one at once.
    const triggeredAt = Date.now();
    await hooks.updateVisitor(visitorId);
    const { deliveries } = await hooks.wait(fast, { 'body.visitorId': visitorId }, 2, PROMPT_MS + holdMs);
    expect(deliveries.length, 'the fast subscriber receives both events').toBe(2);
    const lag = deliveries[1]!.arrivedAt - triggeredAt;
    await timeline('fast subscriber while another holds its answer 8 s', deliveries);
    expect(lag, `the fast subscriber got the second event ${lag} ms after the action while the slow one held its answer ${holdMs} ms; expected under ${promptMs} ms`).toBeLessThan(promptMs);
  });
});
