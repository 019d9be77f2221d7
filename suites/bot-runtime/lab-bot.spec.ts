// Checks on the lab bot (second seeded bot, its own project): endpoint 5 timing and types, endpoint 4 polling rate, the four availability strategies, failing polls.
import { test, expect, clauses, partnerCause, quoteCall, type SimBot } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';
import { notJudged, step, under } from '../verdicts.js';

// These checks change the lab bot's behaviour on the fake connector: one at a time, in one worker, in order. Not `serial`: each
// check stands on its own (it sets what it needs and the tear-down undoes it), so a failure never turns the others into SKIP.
test.describe.configure({ mode: 'default' });

test.describe('lab bot', () => {
  let lab: SimBot;
  let other: SimBot;
  // Whether this check's creation flow gave the bots: a check whose beforeEach ended NOT JUDGED has nothing to tear down.
  let made = false;
  // Only the creation flow: the checks that need the lab bot available wait for it themselves (a check of the polling must not
  // depend on the polls' answers). A service whose bots never become ready makes them NOT JUDGED with the cause.
  test.beforeEach(async ({ bot }) => {
    made = false;
    ({ lab, conv: other } = await bot.seededBots('none'));
    made = true;
  });
  test.afterEach(async ({ bot }) => {
    if (!made) return;
    await bot.clearFaults(lab.operatorId);
    await bot.operatorBehaviour(lab.operatorId, { clear: true });
  });

  /** Waits for two polls after the change, so the service has judged an answer given under the new behaviour. */
  async function settled(bot: import('./helpers.js').BotDriver) {
    const since = await bot.lastSeq();
    const first = await bot.waitRequest({ endpoint: 'availability', idOperator: lab.operatorId, since }, 3_000);
    under('BOT-EP4-01', () => expect(first, 'endpoint 4 polled').not.toBeNull());
    const second = await bot.waitRequest({ endpoint: 'availability', idOperator: lab.operatorId, since: first!.seq }, 3_000);
    under('BOT-EP4-01', () => expect(second, 'endpoint 4 polled again').not.toBeNull());
    // The strategy reaches the service only in an answered poll: polls the connector refused leave nothing to judge here.
    const refused = (await bot.requests({ endpoint: 'availability', idOperator: lab.operatorId, since })).requests.filter((r) => r.answer !== undefined && r.answer.status !== 200);
    if (refused.length) notJudged(`the lab bot's availability polls were not answered with its strategy. ${partnerCause(refused) ?? `The connector answered ${refused.map(quoteCall).join('; ')}.`}`);
  }
  const availableNow = async (bot: import('./helpers.js').BotDriver, id: number) => (await bot.bots()).find((b) => b.operatorId === id)!.available;

  test('endpoint 5 is used before the first visitor message; only its message replies are used', clauses('BOT-EP5-01', 'BOT-EP5-03').needs('sim', 'connector_url'), async ({ bot }) => {
    await bot.seededBots('lab');
    const since = await bot.lastSeq();
    const id = await bot.start('hello lab', { websiteId: lab.websiteId });
    // A wait for the conversation to have gone past the visitor's message, not a time limit of this check's clauses: a service
    // that serialises endpoint 7 across conversations (BOT-FAIL-02, REF) may first finish another conversation's 10 s call. A
    // service that ran endpoint 5's close or transfer reply (BOT-EP5-03) ends or hands over the conversation first, maybe before
    // the visitor's message: the wait ends there too, and BOT-EP5-03 is judged on what it did (before, this check waited the
    // whole 15 s for an answer that never came and failed BOT-EP5-01, or caught it only when the answer won the race).
    const v = await step('BOT-EP5-01', 'the lab bot answers', () => bot.until(id, 'the lab bot answers (or the conversation is closed or transferred)', (x) => bot.hasText(x, 'Lab bot received your message.') || x.state !== 'started' || (x.operatorId !== null && x.operatorId !== lab.operatorId), 15_000));
    const visitorIdx = v.transcript.findIndex((e) => e.role === 'visitor');
    // No visitor message displayed (the conversation ended first): everything shown came before it.
    const beforeVisitor = visitorIdx < 0 ? v.transcript : v.transcript.slice(0, visitorIdx);
    under('BOT-EP5-01', () => expect(beforeVisitor.filter((e) => e.role === 'bot').length, 'the first messages of endpoint 5 are displayed before the visitor message').toBeGreaterThan(0));
    under('BOT-EP5-03', () => expect(beforeVisitor.map((e) => `${e.role}:${e.payload?.value}`), 'the message replies of endpoint 5, before the visitor message; await, close and transfer ignored') .toEqual(['bot:Lab bot here.', 'bot:Second first message.']));
    under('BOT-EP5-03', () => expect(v.state, 'the close reply of endpoint 5 was ignored').toBe('started'));
    under('BOT-EP5-03', () => expect(v.operatorId, 'the transfer reply of endpoint 5 was ignored').toBe(lab.operatorId));
    const { requests } = await bot.requests({ since });
    const ep5 = requests.find((r) => r.endpoint === 'first-messages' && r.idOperator === String(lab.operatorId));
    const ep6 = requests.find((r) => r.idConversation === id && r.endpoint === 'conversation-create');
    // Endpoint 6 is never called for a conversation that endpoint 5's close reply ended (BOT-EP5-03's failure, judged above):
    // the order of the two is then not there to judge. Open, a missing endpoint 6 fails it.
    if (ep6 || v.state === 'started') under('BOT-EP5-01', () => expect(ep5 && ep6 && ep5.seq < ep6.seq, 'endpoint 5 before endpoint 6').toBe(true));
    await bot.attachConversation('first messages', id, ep5 ? [ep5] : []);
  });

  test('endpoint 5 answering after 2 s: the first messages are not displayed', clauses('BOT-EP5-02', 'BOT-EP5-04').needs('sim', 'connector_url'), async ({ bot }) => {
    await bot.seededBots('lab');
    const delay = LIMITS.firstMessagesTimeoutMs + 1_000;
    await bot.fault({ endpoint: 'first-messages', idOperator: lab.operatorId, delayMs: delay });
    const since = await bot.lastSeq();
    const id = await bot.start('hello slow lab', { websiteId: lab.websiteId });
    const ep5 = await bot.waitRequest({ endpoint: 'first-messages', idOperator: lab.operatorId, since }, 5_000);
    under('BOT-EP5-02', () => expect(ep5, 'endpoint 5 called for the conversation').not.toBeNull());
    // Evidence first: the connector's call has ended (the service gave up, or the late answer went out) and the visitor was answered.
    await under('BOT-EP5-02', () => expect.poll(async () => (await bot.requests({ since, endpoint: 'first-messages', idOperator: lab.operatorId })).requests[0]?.answer !== undefined, { message: `the call of endpoint 5 ended at the connector (given up, or answered after ${delay} ms)`, timeout: delay + 3_000 }).toBe(true));
    const final = await step('BOT-EP5-02', 'the lab bot answers the visitor', () => bot.until(id, 'the lab bot answers the visitor', (x) => bot.hasText(x, 'Lab bot received your message.'), 5_000));
    under('BOT-EP5-02', () => expect(final.transcript.map((e) => e.payload?.value), 'first messages not displayed').not.toContain('Lab bot here.'));
    const call = (await bot.requests({ since, endpoint: 'first-messages', idOperator: lab.operatorId })).requests[0]!;
    const create = await bot.waitRequest({ idConversation: id, endpoint: 'conversation-create', since }, 1_000);
    // How the service gives up (G20): it closes the call at 2 s, records the timeout, and shows no first message in the history.
    under('BOT-EP5-04', () => {
      expect(call.answer?.status, 'the service closed the call of endpoint 5 before the connector answered').toBe('reset');
      // Measured at the connector, from the request's arrival: the service's clock also ran during connection set-up, hence -500 ms.
      expect(call.answer!.ms, `endpoint 5 cut at ${LIMITS.firstMessagesTimeoutMs} ms (tolerance -500/+1000 ms, measured at the connector)`).toBeGreaterThanOrEqual(LIMITS.firstMessagesTimeoutMs - 500);
      expect(call.answer!.ms).toBeLessThan(LIMITS.firstMessagesTimeoutMs + 1_000);
      expect(create?.body.history, 'no first messages in the history').toEqual([]);
      expect(final.failures.some((f) => f.endpoint === 'first-messages'), 'the timeout is recorded').toBe(true);
    });
    await bot.attachConversation('first messages of a late endpoint 5', id, [call]);
  });

  test('endpoint 4 is polled once per second per bot operator (±10 %)', clauses('BOT-EP4-01').needs('sim', 'connector_url'), async ({ bot }) => {
    let since = await bot.lastSeq();
    const arrivals: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await bot.waitRequest({ endpoint: 'availability', idOperator: lab.operatorId, since }, 4_000);
      expect(r, 'a poll arrived').not.toBeNull();
      arrivals.push(r!.at);
      since = r!.seq;
    }
    const gaps = arrivals.slice(1).map((a, i) => a - arrivals[i]!);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const tol = LIMITS.availabilityPollMs * LIMITS.availabilityPollTolerance;
    expect(mean, `mean polling period ${mean.toFixed(0)} ms over ${gaps.length} periods (gaps ${gaps.join(', ')}) is ${LIMITS.availabilityPollMs} ms ±10 %`).toBeGreaterThanOrEqual(LIMITS.availabilityPollMs - tol);
    expect(mean).toBeLessThanOrEqual(LIMITS.availabilityPollMs + tol);
  });

  for (const c of [
    { name: 'atLeastOne over an available and an empty rule: available', strategy: 'atLeastOne', rules: ['avail', 'empty'], expected: true, clause: 'BOT-AVAIL-01' },
    { name: 'atLeastOne over an empty rule: unavailable', strategy: 'atLeastOne', rules: ['empty'], expected: false, clause: 'BOT-AVAIL-01' },
    { name: 'all over an available and an empty rule: unavailable', strategy: 'all', rules: ['avail', 'empty'], expected: false, clause: 'BOT-AVAIL-02' },
    { name: 'all over available rules: available', strategy: 'all', rules: ['avail'], expected: true, clause: 'BOT-AVAIL-02' },
    { name: 'customAvailability false: unavailable', strategy: 'customAvailability', availability: false, expected: false, clause: 'BOT-AVAIL-04' },
    { name: 'customAvailability true: available', strategy: 'customAvailability', availability: true, expected: true, clause: 'BOT-AVAIL-04' },
  ]) {
    test(`strategy ${c.name}`, clauses(c.clause).needs('sim', 'connector_url'), async ({ bot }) => {
      const avail = lab.distributionRules.find((r) => r.availableOperatorIds.length > 0);
      const empty = lab.distributionRules.find((r) => r.availableOperatorIds.length === 0);
      expect(avail && empty, 'the lab bot has a rule with an available operator and one without').toBeTruthy();
      const ids = (c.rules ?? []).map((k) => (k === 'avail' ? avail!.id : empty!.id));
      const strategy = c.strategy === 'customAvailability' ? { strategy: c.strategy, availability: c.availability } : { strategy: c.strategy, distributionRulesToCheck: ids };
      await bot.operatorBehaviour(lab.operatorId, { availability: [strategy] });
      await settled(bot);
      expect(await availableNow(bot, lab.operatorId), `${JSON.stringify(strategy)} → available ${c.expected}`).toBe(c.expected);
    });
  }

  test('strategy notAvailable: unavailable, and chats of its routing rule do not go to the bot', clauses('BOT-AVAIL-03', 'BOT-AVAIL-06').needs('sim', 'connector_url'), async ({ bot }) => {
    await bot.operatorBehaviour(lab.operatorId, { availability: [{ strategy: 'notAvailable' }] });
    await settled(bot);
    await under('BOT-AVAIL-03', async () => expect(await availableNow(bot, lab.operatorId), 'notAvailable → unavailable').toBe(false));
    // How the availability feeds routing is the reference's decision (G17).
    const id = await bot.start('hello unavailable lab', { websiteId: lab.websiteId });
    const v = await bot.viewStep(id);
    under('BOT-AVAIL-06', () => {
      expect(v.operatorId, 'the chat went to another operator than the unavailable bot').not.toBe(lab.operatorId);
      expect(v.botOperatorId ?? null, 'no bot in the conversation').toBeNull();
    });
  });

  for (const [name, fault] of [['failing (HTTP 503)', { status: 503 }], ['slow (5 s)', { delayMs: 5_000 }]] as const) {
    test(`a ${name} endpoint 4 makes that bot unavailable and never slows the polling of another bot`, clauses('BOT-AVAIL-05').needs('sim', 'connector_url'), async ({ bot }) => {
      // Both available first: what this check judges is the change the failing polls make.
      await bot.seededBots('both');
      await bot.fault({ endpoint: 'availability', idOperator: lab.operatorId, ...fault });
      const since = await bot.lastSeq();
      // Staleness limit plus two periods.
      await expect.poll(() => availableNow(bot, lab.operatorId), { message: `the lab bot becomes unavailable within ${LIMITS.botAvailabilityStaleMs + 2_000} ms`, timeout: LIMITS.botAvailabilityStaleMs + 2_000 }).toBe(false);
      // Watch at least three polls of the other bot while the lab bot's polls fail.
      let seq = since;
      for (let i = 0; i < 3; i++) {
        const r = await bot.waitRequest({ endpoint: 'availability', idOperator: other.operatorId, since: seq }, 3_000);
        expect(r, 'the other bot kept being polled').not.toBeNull();
        seq = r!.seq;
      }
      const { requests } = await bot.requests({ since, endpoint: 'availability', idOperator: other.operatorId });
      const gaps = requests.slice(1).map((r, i) => r.at - requests[i]!.at);
      expect(gaps.length, 'the other bot kept being polled').toBeGreaterThan(0);
      expect(Math.max(...gaps), `the other bot's polling period stayed about 1 s (gaps ${gaps.join(', ')}; tolerance +900 ms)`).toBeLessThan(LIMITS.availabilityPollMs + 900);
      expect(await availableNow(bot, other.operatorId), 'the other bot stays available').toBe(true);
    });
  }
});

