// The 10-second limit of endpoint 7, measured in real time at the fake connector: a late bot answer is never displayed.
import { test, expect, clauses, text, uniq } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';

test('endpoint 7 answering after 10 s: the call times out at 10 s and the answer is not displayed', clauses('BOT-EP7-05').needs('sim', 'connector_url'), async ({ bot }) => {
  test.setTimeout(40_000);
  await bot.seededBots();
  const t = uniq('late');
  const late = LIMITS.messageTimeoutMs + 1_000;
  await bot.script(t, [text('This answer comes too late.')], { faults: { messages: { delayMs: late } } });
  const since = await bot.lastSeq();
  const id = await bot.start(t);
  const call = await bot.waitRequest({ idConversation: id, role: 'visitor', text: t, since }, 5_000);
  expect(call, 'endpoint 7 was called for the first visitor message').not.toBeNull();
  // Wait until the fake connector has either been cut off (timeout) or answered late, plus 1 s for the service to act on it.
  const v = await bot.until(id, 'the call of endpoint 7 ended (timeout or late answer)', (x) => x.failures.some((f) => f.endpoint === 'messages') || bot.hasText(x, 'This answer comes too late.'), late + 3_000);
  expect(bot.hasText(v, 'This answer comes too late.'), 'the late answer is not displayed').toBe(false);
  const { requests } = await bot.requests({ idConversation: id, since });
  const seen = requests.find((r) => r.seq === call!.seq)!;
  expect(seen.answer?.status, 'the service gave up before the connector answered').toBe('reset');
  // Measured at the connector, from the request's arrival: the service's clock also ran during connection set-up, hence -500 ms.
  expect(seen.answer!.ms, `the service waited ${LIMITS.messageTimeoutMs} ms (tolerance -500/+1000 ms, measured at the connector)`).toBeGreaterThanOrEqual(LIMITS.messageTimeoutMs - 500);
  expect(seen.answer!.ms).toBeLessThan(LIMITS.messageTimeoutMs + 1_000);
  expect(v.failures.find((f) => f.endpoint === 'messages')?.kind, 'the timeout is recorded').toBe('timeout');
  expect(v.state, 'the conversation stays open').toBe('started');
  await bot.attachConversation('late answer of endpoint 7', id);
});
