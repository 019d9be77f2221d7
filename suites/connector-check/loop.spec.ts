// Connector check of loop safety on a fresh conversation: a message whose author is an operator gets empty replies.
import { randomUUID } from 'node:crypto';
import { test, expect, clauses, is2xx, needsBot } from './check-fixtures.js';
import { notJudgedIf } from '../verdicts.js';
import { describe, operatorMessage } from '../../check/connector-client.js';
import { abortAfter, LIMIT_OF } from '../../check/timing.js';
import { operatorReplies } from '../../check/judge.js';

test('a message with role operator gets empty replies', clauses('CONN-LOOP-01'), async ({ bot, client }) => {
  needsBot(bot);
  const idConversation = randomUUID();
  const start = await client.call(6, 'POST', '/conversations', { body: { idOperator: bot.idOperator, idConversation, history: [] }, timeoutMs: abortAfter(LIMIT_OF.config) });
  const conv = typeof (start.json as any)?.idConversation === 'string' ? (start.json as any).idConversation : idConversation;
  const ex = await client.call(7, 'POST', `/conversations/${encodeURIComponent(conv)}/messages`, {
    body: { idOperator: bot.idOperator, message: operatorMessage({ contentType: 'text', value: 'Hello, an operator of the desk writing here.' }) },
    timeoutMs: abortAfter(LIMIT_OF.message),
  });
  // No answer, or an answer without replies, is no evidence of ignoring operator messages (silence is not "empty replies").
  notJudgedIf(!is2xx(ex) || !Array.isArray((ex.json as any)?.replies), `endpoint 7 answered the operator message with no replies array (${describe(ex)}; see CONN-EP7-01, CONN-EP7-02): whether the connector ignores operator messages could not be observed`);
  expect(operatorReplies(ex.json), 'the connector must reply only to visitor messages and ignore operator messages, else it loops on itself').toEqual([]);
});
