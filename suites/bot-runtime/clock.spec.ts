// Long durations through POST /clock/advance (capability clock): 5-minute inactivity close, 60 s default transfer timeout, minute awaits, 7-day offsite close.
import { test, expect, clauses } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';
import { under } from '../verdicts.js';

// Moving the service clock would disturb other checks' timers: these take the suite's lock exclusively.
test.use({ clockMode: 'exclusive' });

test('5 minutes of inactivity close a bot conversation, counted from its last activity, not before', clauses('BOT-STATE-02').needs('sim', 'connector_url', 'clock'), async ({ bot }) => {
  await bot.seededBots();
  const id = await bot.start('No thanks');
  await bot.until(id, 'the bot answers', (x) => bot.hasText(x, 'All right, have a nice day.'));
  // Activity in between: a visitor message 3 minutes in restarts the 5 minutes (a timer counted from the start would close first).
  await bot.advance(3 * 60_000);
  const res = await bot.say(id, 'still there?');
  expect(res.status, `the visitor writes 3 minutes in: ${res.text}`).toBeLessThan(300);
  await bot.until(id, 'the bot answers the second message', (x) => {
    const i = x.transcript.findIndex((e) => e.role === 'visitor' && e.payload?.value === 'still there?');
    return i >= 0 && x.transcript.slice(i + 1).some((e) => e.role === 'bot');
  });
  await bot.advance(LIMITS.botInactivityMs - 2_000);
  expect((await bot.viewStep(id)).state, 'still open 2 s before 5 minutes of inactivity after the last activity').toBe('started');
  await bot.advance(3_000);
  const v = await bot.until(id, 'closed after 5 minutes of inactivity', (x) => x.state === 'closed', 2_000);
  expect(v.closeReason ?? 'inactivity').toBe('inactivity');
});

test('a transfer without transferOptions times out after 60 s', clauses('BOT-TRANSFER-05', 'BOT-TRANSFER-04').needs('sim', 'connector_url', 'clock'), async ({ bot }) => under('BOT-TRANSFER-05', async () => {
  await bot.seededBots();
  const id = await bot.start('transfer default timeout');
  await bot.until(id, 'the transfer is requested', (x) => x.transcript.some((e) => e.payload?.value === 'TRANSFER_REQUESTED'));
  await bot.advance(LIMITS.transferTimeoutDefaultMs - 2_000);
  const before = await bot.viewStep(id);
  expect(bot.hasText(before, 'Sorry, the transfer timed out.'), 'the scenario waits the default 60 s (checked at 58 s)').toBe(false);
  await bot.advance(3_000);
  const v = await bot.until(id, 'the scenario continues after 60 s and closes', (x) => x.state === 'closed', 3_000);
  under('BOT-TRANSFER-04', () => expect(bot.hasText(v, 'Sorry, the transfer timed out.'), 'the scenario continues with the replies after the transfer').toBe(true));
}));

test('an await in minutes delays the next reply by that many minutes', clauses('BOT-AWAIT-01').needs('sim', 'connector_url', 'clock'), async ({ bot }) => {
  await bot.seededBots();
  const id = await bot.start('schedule a minute');
  await bot.until(id, 'the message before the await', (x) => bot.hasText(x, 'I will write again in a minute.'));
  await bot.advance(58_000);
  expect(bot.hasText(await bot.viewStep(id), 'A minute has passed.'), 'not yet at 58 s').toBe(false);
  await bot.advance(3_000);
  await bot.until(id, 'the scheduled message after one minute', (x) => bot.hasText(x, 'A minute has passed.'), 2_000);
});

test('an offsite conversation closes after 7 days of inactivity, counted from its last activity, not before', clauses('BOT-OFFSITE-01').needs('sim', 'connector_url', 'clock'), async ({ bot }) => {
  const id = await bot.start('hello from social_a', { channel: 'social_a' });
  // Activity in between: a visitor message 3 days in restarts the 7 days.
  await bot.advance(3 * 24 * 3_600_000);
  const res = await bot.say(id, 'still there?');
  expect(res.status, `the visitor writes 3 days in: ${res.text}`).toBeLessThan(300);
  await bot.advance(LIMITS.offsiteInactivityMs - 60_000);
  expect((await bot.viewStep(id)).state, 'still open 1 minute before 7 days after the last activity').toBe('started');
  await bot.advance(120_000);
  await bot.until(id, 'closed after 7 days of inactivity', (x) => x.state === 'closed', 2_000);
});
