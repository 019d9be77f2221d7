// Connector checks of endpoint 5 (first messages): answered within 2 s, with schema-valid replies of type message.
import { test, expect, clauses, is2xx, repliesOf, answeredWithoutBot, notRefused } from './check-fixtures.js';
import { notJudgedIf } from '../verdicts.js';
import { describe } from '../../check/connector-client.js';
import { replyProblems, schemaErrors } from '../../check/judge.js';
import { abortAfter, LIMIT_OF, timingText, withinLimit } from '../../check/timing.js';

const firstMessages = (client: import('../../check/connector-client.js').ConnectorClient, idOperator: string) =>
  client.call(5, 'GET', `/bots/${encodeURIComponent(idOperator)}/conversation-first-messages`, { timeoutMs: abortAfter(LIMIT_OF.firstMessages) });

test('first messages are answered within 2 s', clauses('CONN-EP5-01'), async ({ bot, client }) => {
  const ex = await firstMessages(client, bot.idOperator);
  answeredWithoutBot(bot, ex);
  // The time of a refusal says nothing about the first messages: only an answer with them (or none at all) is judged.
  notJudgedIf(ex.error === undefined && !is2xx(ex), `endpoint 5 answered no first messages (${describe(ex)}; see CONN-EP5-02)`);
  expect(ex.error === undefined && withinLimit(ex.ms, LIMIT_OF.firstMessages), `${timingText('GET /bots/{idOperator}/conversation-first-messages', ex.ms, LIMIT_OF.firstMessages, ex.error)}: later, the first messages are not displayed`).toBe(true);
});

test('first messages answer an object with schema-valid replies', clauses('CONN-EP5-02'), async ({ bot, client }) => {
  const ex = await firstMessages(client, bot.idOperator);
  answeredWithoutBot(bot, ex, true);
  notRefused(ex);
  expect(is2xx(ex), `endpoint 5 must answer 2xx (${describe(ex)})`).toBe(true);
  const errors = schemaErrors('connector/first-messages.json', ex.json);
  expect(errors, `answer does not match connector/first-messages.json: ${errors}`).toBeNull();
  expect(replyProblems(repliesOf(ex), 'first messages')).toEqual([]);
});

test('first messages are replies of type message', clauses('CONN-EP5-03'), async ({ bot, client }) => {
  const ex = await firstMessages(client, bot.idOperator);
  answeredWithoutBot(bot, ex);
  const replies = repliesOf(ex);
  notJudgedIf(replies.length === 0, `no first-messages replies (${describe(ex)})`);
  const others = replies.map((r, i) => `[${i}] ${r?.type}`).filter((_, i) => replies[i]?.type !== 'message');
  expect(others, `only message replies are used by the service; these are ignored: ${others.join(', ')}`).toEqual([]);
});
