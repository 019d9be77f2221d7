// Webhook receiver checks: signed deliveries of every event kind with the real headers, answer status and time, signature refusal, retries with the same correlation id.
import { randomUUID } from 'node:crypto';
import { test, expect, clauses, is2xx, is4xx, outcome, type Deliver } from './check-fixtures.js';
import { assertSampleShape, samples } from '../../check/webhook-samples.js';
import { notJudgedIf, HarnessError } from '../verdicts.js';
import { LIMIT_OF, RECEIVER_QUICK_ANSWER_MS, TIMING_TOLERANCE_MS, withinLimit } from '../../check/timing.js';

test('the callback URL is HTTPS', clauses('RECV-HTTPS-01'), async ({ receiver }) => {
  test.skip(!receiver.url.startsWith('https://') && receiver.allowHttp, 'plain http accepted by --allow-http for local development: the service only calls HTTPS callbacks');
  expect(receiver.url, `the callback URL ${receiver.url} must use HTTPS`).toMatch(/^https:\/\//);
});

for (const sample of samples()) {
  test(`a signed ${sample.title} delivery is answered 20x within 30 s`, clauses('RECV-ANSWER-01'), async ({ deliver }) => {
    assertSampleShape(sample);
    const d = await deliver(`deliver ${sample.title}`, { ...sample.body, eventId: randomUUID() });
    expect(is2xx(d), `the callback must answer a correctly signed ${sample.kind} delivery with 20x (${outcome(d)}); anything else is retried`).toBe(true);
    expect(withinLimit(d.ms, LIMIT_OF.webhookAnswer), `answered in ${Math.round(d.ms)} ms; the answer timeout is ${LIMIT_OF.webhookAnswer} ms (+${TIMING_TOLERANCE_MS} ms harness tolerance)`).toBe(true);
  });
}

test('a delivery is answered quickly', clauses('RECV-FAST-01'), async ({ deliver }) => {
  const [first] = samples();
  const d = await deliver('deliver v2.conversation.pushed (timed)', first!.body);
  // No answer is never quick; a refusal's time says nothing about how long the receiver takes over a delivery it accepts.
  expect(d.answer, `no answer: ${outcome(d)}`).toBeDefined();
  notJudgedIf(!is2xx(d), `the delivery was not accepted (${outcome(d)}; see RECV-ANSWER-01): the time of a refusal says nothing about answering accepted deliveries quickly`);
  expect(withinLimit(d.ms, RECEIVER_QUICK_ANSWER_MS), `answered in ${Math.round(d.ms)} ms; a receiver should answer within ${RECEIVER_QUICK_ANSWER_MS} ms (+${TIMING_TOLERANCE_MS} ms harness tolerance) and do its work after answering`).toBe(true);
});

/** The correctly signed twin of a refused delivery: a refusal proves something only if the receiver accepts this one. */
async function acceptedTwin(deliver: Deliver, body: Record<string, unknown>): Promise<void> {
  const twin = await deliver('deliver correctly signed (the twin)', { ...body, eventId: randomUUID() });
  notJudgedIf(!is2xx(twin), `the correctly signed twin was not accepted (${outcome(twin)}; see RECV-ANSWER-01), so a refusal of bad signatures would prove nothing`);
}

test('a delivery with a wrong signature is refused with 4xx', clauses('RECV-SIG-01'), async ({ deliver, receiver }) => {
  test.skip(receiver.unsigned, '--unsigned: deliveries carry no signature; the signature clauses are not judged');
  const [first] = samples();
  await acceptedTwin(deliver, first!.body);
  const d = await deliver('deliver with a signature over other bytes', first!.body, { signature: 'wrong' });
  expect(is4xx(d), `a delivery whose X-Service-Signature does not match the raw body should be refused with 4xx (${outcome(d)}): anyone could post fake events otherwise`).toBe(true);
});

test('a delivery without signature is refused with 4xx', clauses('RECV-SIG-02'), async ({ deliver, receiver }) => {
  test.skip(receiver.unsigned, '--unsigned: deliveries carry no signature; the signature clauses are not judged');
  const [first] = samples();
  await acceptedTwin(deliver, first!.body);
  const d = await deliver('deliver without X-Service-Signature', first!.body, { signature: 'missing' });
  expect(is4xx(d), `a delivery without X-Service-Signature should be refused with 4xx (${outcome(d)})`).toBe(true);
});

test('a retry with the same correlation id is accepted', clauses('RECV-RETRY-01'), async ({ deliver }) => {
  const [first] = samples();
  const correlationId = randomUUID();
  const attempt = await deliver('deliver (first attempt)', first!.body, { correlationId });
  // A retry proves duplicate handling only after a first attempt the receiver accepted: then it holds the event already.
  notJudgedIf(!is2xx(attempt), `the first attempt was not accepted (${outcome(attempt)}; see RECV-ANSWER-01): a retry after a refusal says nothing about how the receiver treats a duplicate`);
  const retry = await deliver('deliver again: new X-Service-Delivery, same X-Service-CorrelationId and body (retry)', first!.body, { correlationId });
  if (retry.headers['x-service-delivery'] === attempt.headers['x-service-delivery']) throw new HarnessError('check-bug', 'a retry must carry a new X-Service-Delivery (check/webhook-samples.ts deliveryHeaders)');
  expect(is2xx(retry), `a retry (same correlation id ${correlationId}) must be answered 20x, not refused as a duplicate: first attempt ${outcome(attempt)}, retry ${outcome(retry)}`).toBe(true);
});
