// The 10-second limit of endpoint 7, measured in real time at the fake connector: a late bot answer is never displayed.
import { test, expect, clauses, text, uniq, type ConnectorRequest } from './helpers.js';
import { under } from '../verdicts.js';
import { LIMITS } from '../../lib/limits.js';

test('endpoint 7 answering after 10 s: the answer is not displayed', clauses('BOT-EP7-05', 'BOT-EP7-06').needs('sim', 'connector_url'), async ({ bot }) => {
  test.setTimeout(40_000);
  await bot.seededBots();
  const t = uniq('late');
  const late = LIMITS.messageTimeoutMs + 1_000;
  await bot.script(t, [text('This answer comes too late.')], { faults: { messages: { delayMs: late } } });
  const since = await bot.lastSeq();
  const id = await bot.start(t);
  const call = await bot.waitRequest({ idConversation: id, role: 'visitor', text: t, since }, 5_000);
  under('BOT-EP7-05', () => expect(call, 'endpoint 7 was called for the first visitor message').not.toBeNull());
  // Evidence first: the connector's call has ended (the service gave up, or the late answer went out), then 1 s for the service
  // to act on a late answer.
  let ended: ConnectorRequest | undefined;
  await under('BOT-EP7-05', () => expect.poll(async () => (ended = (await bot.requests({ idConversation: id, since })).requests.find((r) => r.seq === call!.seq))?.answer !== undefined, { message: `the call of endpoint 7 ended at the connector (given up, or answered after ${late} ms)`, timeout: late + 3_000 }).toBe(true));
  await new Promise((r) => setTimeout(r, 1_000));
  const v = await bot.viewStep(id);
  under('BOT-EP7-05', () => expect(bot.hasText(v, 'This answer comes too late.'), 'the late answer is not displayed').toBe(false));
  // How the service gives up (G20): it closes the call at 10 s and records the timeout; the conversation stays open.
  under('BOT-EP7-06', () => {
    expect(ended!.answer?.status, 'the service gave up before the connector answered').toBe('reset');
    // Measured at the connector, from the request's arrival: the service's clock also ran during connection set-up, hence -500 ms.
    expect(ended!.answer!.ms, `the service waited ${LIMITS.messageTimeoutMs} ms (tolerance -500/+1000 ms, measured at the connector)`).toBeGreaterThanOrEqual(LIMITS.messageTimeoutMs - 500);
    expect(ended!.answer!.ms).toBeLessThan(LIMITS.messageTimeoutMs + 1_000);
    expect(v.failures.find((f) => f.endpoint === 'messages')?.kind, 'the timeout is recorded').toBe('timeout');
    expect(v.state, 'the conversation stays open').toBe('started');
  });
  await bot.attachConversation('late answer of endpoint 7', id);
});
