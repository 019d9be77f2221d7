// Connector checks judged on one scripted conversation (endpoints 6 and 7, loop safety on echoes, limits of texts, quick replies, transfers, images, bundles).
import { test, expect, clauses, attachConversation, attachExchanges, attachFailing, is2xx, repliesOf, needsBot, answeredWithoutBot, evidenceOf, orNoBot, notRefused } from './check-fixtures.js';
import { notJudged, notJudgedIf } from '../verdicts.js';
import { agentFor } from '../../lib/http.js';
import { LIMITS } from '../../lib/limits.js';
import { mask } from '../../lib/mask.js';
import { describe, brief, type Exchange } from '../../check/connector-client.js';
import { excerpt, refusedAuth } from '../../check/evidence.js';
import { allReplies, exchangesOf, originOf, type ConversationRun } from '../../check/conversation.js';
import { conversationIdWarning, dateWarningsOf, unlistedFields } from '../../check/judge.js';
import { note, warn } from '../verdicts.js';
import { bundleProblems, bundlesOf, dateProblems, imagesOf, isDateError, longTexts, messageAnswerProblems, operatorReplies, quickReplyCounts, schemaErrors, textsOf, transfersOf, unknownTransferRules } from '../../check/judge.js';
import { abortAfter, LIMIT_OF, timingText, withinLimit } from '../../check/timing.js';
import { imageProblem, probeImage } from '../../check/image.js';

const visitorSteps = (run: ConversationRun) => run.steps.flatMap((s) => (s.kind === 'visitor' ? [s] : []));
const echoSteps = (run: ConversationRun) => run.steps.flatMap((s) => (s.kind === 'echo' ? [s] : []));
const operatorStep = (run: ConversationRun) => run.steps.flatMap((s) => (s.kind === 'operator' ? [s] : []))[0];
/** Every endpoint-7 step (visitor messages, the operator's, the echoes) with where its answer came from. */
const endpoint7Steps = (run: ConversationRun) => {
  let visitor = 0;
  return run.steps.flatMap((s) => {
    if (s.kind === 'visitor') visitor++;
    return s.kind === 'visitor' || s.kind === 'echo' || s.kind === 'operator' ? [{ step: s, origin: originOf(s, visitor) }] : [];
  });
};
const startOf = (run: ConversationRun): Exchange => run.steps.find((s) => s.kind === 'start')!.exchange as Exchange;
const endpoint7 = (run: ConversationRun): Exchange[] => endpoint7Steps(run).map((x) => x.step.exchange);
const answers = (run: ConversationRun) => [startOf(run), ...endpoint7(run)].filter((ex) => is2xx(ex) && ex.json && typeof ex.json === 'object');

// The scripted conversation (the `conversation` fixture). When the run created no bot, the checker held it with an idOperator of
// its own (G36): its 2xx answers are judged as any other, and a check with nothing else to judge is NOT JUDGED naming the missing
// bot (orNoBot).

test('a scripted conversation is held (greeting, quick reply, free text)', clauses('CONN-SCEN-01'), async ({ connector, conversation }) => {
  const run = await conversation();
  await attachConversation(run);
  const start = startOf(run);
  answeredWithoutBot(run.setup, start);
  for (const s of visitorSteps(run)) answeredWithoutBot(run.setup, s.exchange);
  notRefused(start);
  expect(is2xx(start), `POST /conversations must open the conversation (${describe(start)})`).toBe(true);
  const steps = visitorSteps(run);
  expect(steps.length, `at least one visitor message of the script (${connector.script.length} steps) must be sent`).toBeGreaterThan(0);
  const problems = steps.flatMap((s) => {
    const ex = s.exchange;
    if (!is2xx(ex)) return [`"${s.text}": ${describe(ex)}`];
    if (!withinLimit(ex.ms, LIMIT_OF.message)) return [`"${s.text}": ${timingText('endpoint 7', ex.ms, LIMIT_OF.message)}`];
    const errors = schemaErrors('connector/conversation.json', ex.json);
    return errors ? [`"${s.text}": ${errors}`] : [];
  });
  expect(problems, `every visitor message must get a timely, schema-valid answer: ${problems.join('; ')}`).toEqual([]);
});

test('POST /conversations answers a Connector conversation', clauses('CONN-EP6-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const start = startOf(run);
  await attachExchanges('POST /conversations', [start]);
  answeredWithoutBot(run.setup, start, true);
  notRefused(start);
  expect(is2xx(start), `POST /conversations must answer 2xx (${describe(start)})`).toBe(true);
  const errors = schemaErrors('connector/conversation.json', start.json, isDateError);
  expect(errors, `answer does not match connector/conversation.json: ${errors}`).toBeNull();
  const own = conversationIdWarning((start.json as any)?.idConversation);
  if (own) warn(own);
  const extra = unlistedFields('connector/conversation.json', start.json);
  if (extra.length) note(`POST /conversations answered fields beyond those listed (tolerated, G25): ${extra.join(', ')}`);
});

test('POST /conversations answers empty replies', clauses('CONN-EP6-02'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const start = startOf(run);
  await attachExchanges('POST /conversations', [start]);
  answeredWithoutBot(run.setup, start);
  notJudgedIf(!Array.isArray((start.json as any)?.replies), `no replies array answered (${brief(start)}; see CONN-EP6-01)`);
  expect(repliesOf(start).map((r) => r?.type), 'POST /conversations must answer replies: [] (endpoint 7 follows immediately with the first visitor message)').toEqual([]);
});

test('Connector conversation createdAt and updatedAt are ISO 8601 date-times', clauses('CONN-CONV-DATES-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const list = answers(run);
  await attachExchanges('answers judged', list);
  notJudgedIf(list.length === 0, orNoBot(run.setup, 'no endpoint 6/7 answer was a JSON object (see CONN-EP6-01, CONN-EP7-02).'));
  const problems = list.flatMap((ex) => dateProblems(ex.json, true).map((p) => `${ex.method} ${ex.path}: ${p}`));
  expect(problems, `createdAt/updatedAt must be non-empty ISO 8601 date-times: ${problems.join('; ')}`).toEqual([]);
  const variants = dateWarningsOf(list.map((ex) => ex.json), true);
  if (variants.length) warn(variants.join('; '));
});

test('Connector conversation spells updatedAt as the sample (updateAt reported)', clauses('CONN-CONV-DATES-02'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const list = answers(run);
  notJudgedIf(list.length === 0, orNoBot(run.setup, 'no endpoint 6/7 answer was a JSON object (see CONN-EP6-01, CONN-EP7-02).'));
  const updateAt = [...new Set(list.filter((ex) => (ex.json as any).updatedAt === undefined && (ex.json as any).updateAt !== undefined).map((ex) => `${ex.method} ${ex.path}`))];
  expect(updateAt, `these answers spell the field "updateAt" (the field table's spelling); the sample and the service use "updatedAt": ${updateAt.join(', ')}`).toEqual([]);
});

test('messages are answered within 10 s', clauses('CONN-EP7-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const calls = endpoint7(run);
  await attachExchanges('endpoint 7 calls', calls);
  notJudgedIf(calls.length === 0, orNoBot(run.setup, 'no endpoint 7 call was made.'));
  // Evidence of answering in time is an answer (2xx); no answer is never in time (but is no evidence for an idOperator the
  // connector was never given, G36). A refusal's time says nothing about the bot's answers.
  const judgedCalls = evidenceOf(run.setup, calls.filter((ex) => ex.error !== undefined || is2xx(ex)));
  notJudgedIf(judgedCalls.length === 0, orNoBot(run.setup, `endpoint 7 answered no call with 2xx (${describe(calls[0]!)}; see CONN-EP7-02).`));
  const late = judgedCalls.filter((ex) => ex.error !== undefined || !withinLimit(ex.ms, LIMIT_OF.message)).map((ex) => timingText(`${ex.method} ${ex.path} (${(ex.requestBody as any)?.message?.author?.role} message)`, ex.ms, LIMIT_OF.message, ex.error));
  expect(late, `endpoint 7 must answer within 10 s, else the bot answer is not displayed: ${late.join('; ')}`).toEqual([]);
});

test('messages are answered with a schema-valid Connector conversation', clauses('CONN-EP7-02'), async ({ connector, conversation }) => {
  void connector;
  // Every answer of endpoint 7 is judged: to visitor messages, to the operator's message and to the echoes of the bot's own
  // messages (an answer to an operator-role message is still a Connector conversation, with empty replies).
  // An answer that never came is judged by CONN-EP7-01 (the service drops it); a refusal of the call's credentials by CONN-AUTH-02.
  const run = await conversation();
  const first = visitorSteps(run)[0]?.exchange;
  if (first) answeredWithoutBot(run.setup, first, true);
  const kept = evidenceOf(run.setup, endpoint7(run));
  const steps = endpoint7Steps(run).filter(({ step }) => kept.includes(step.exchange) && step.exchange.error === undefined && !refusedAuth(step.exchange));
  await attachExchanges('endpoint 7 answers (visitor messages, the operator message, echoes)', steps.map((s) => s.step.exchange));
  notJudgedIf(steps.length === 0, orNoBot(run.setup, 'no endpoint 7 call got an answer other than a refusal of its credentials (see CONN-EP7-01, CONN-AUTH-02).'));
  const problemsOf = ({ step, origin }: (typeof steps)[number]): string[] => {
    const ex = step.exchange;
    if (!is2xx(ex)) return [`${origin}: ${describe(ex)}`];
    if (ex.json === undefined) return [`${origin}: answered ${ex.status} ${ex.text ? `with a body that is not JSON ("${excerpt(ex, 60)}")` : 'with an empty body'}, not a Connector conversation`];
    return messageAnswerProblems(ex.json, origin);
  };
  const problems = steps.flatMap(problemsOf);
  await attachFailing(steps.filter((s) => problemsOf(s).length).map((s) => s.step.exchange));
  expect(problems, `answers must match connector/conversation.json and connector/reply.json: ${problems.join('; ')}`).toEqual([]);
  const extra = [...new Set(steps.flatMap((s) => unlistedFields('connector/conversation.json', s.step.exchange.json)))];
  if (extra.length) note(`endpoint 7 answered fields beyond those listed (tolerated, G25): ${extra.join(', ')}`);
});

test('a message with role operator gets empty replies', clauses('CONN-LOOP-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const op = operatorStep(run);
  notJudgedIf(!op, 'the conversation was not opened, so no operator message was sent (see CONN-EP6-01).');
  const ex = op!.exchange;
  await attachExchanges('the operator message of the scripted conversation', [ex]);
  answeredWithoutBot(run.setup, ex);
  // No answer, or an answer without replies, is no evidence of ignoring operator messages (silence is not "empty replies"); the
  // clause judging that same call is named.
  notJudgedIf(!is2xx(ex) || !Array.isArray((ex.json as any)?.replies), `endpoint 7 answered the operator message with no replies array (${describe(ex)}; see ${ex.error !== undefined ? 'CONN-EP7-01' : 'CONN-EP7-02'}): whether the connector ignores operator messages could not be observed.`);
  expect(operatorReplies(ex.json), 'the connector must reply only to visitor messages and ignore operator messages, else it loops on itself').toEqual([]);
});

test("the connector's own replies echoed back as operator messages get empty replies", clauses('CONN-LOOP-02'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  const echoes = echoSteps(run);
  await attachExchanges('echoes of the bot messages (role operator)', echoes.map((s) => s.exchange));
  notJudgedIf(echoes.length === 0, 'the connector sent no message reply to echo.');
  // Evidence of ignoring an echo is an answer with empty replies; an echo that got no answer (or no replies array) shows nothing.
  const looping = echoes.filter((s) => operatorReplies(s.exchange.json).length > 0).map((s) => `echo of ${s.of} → ${operatorReplies(s.exchange.json).length} replies`);
  const silent = echoes.filter((s) => !is2xx(s.exchange) || !Array.isArray((s.exchange.json as any)?.replies));
  // Without a bot, an echo answered other than 2xx is no evidence for that reason (G36), named first.
  const why = (text: string) => (is2xx(silent[0]!.exchange) ? text : orNoBot(run.setup, text));
  if (!looping.length && silent.length) notJudged(why(`${silent.length} of ${echoes.length} echoes got no answer with a replies array (${describe(silent[0]!.exchange)}; see ${silent[0]!.exchange.error !== undefined ? 'CONN-EP7-01' : 'CONN-EP7-02'}): whether the connector ignores its own echoed messages could not be observed.`));
  expect(looping, `the service posts every bot message back with role operator; answering them loops the bot on itself: ${looping.join('; ')}`).toEqual([]);
});

/** Attaches the conversation's answers that carried replies: what the reply judgements below looked at. */
const attachAnswers = (run: ConversationRun) => attachExchanges('answers judged (scripted conversation)', exchangesOf(run).filter((ex) => repliesOf(ex).length > 0));

const texts = (run: ConversationRun) => allReplies(run).flatMap((r) => textsOf(r.replies, r.origin));

test('every bot text is at most 450 characters', clauses('CONN-TEXT-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const list = texts(run);
  notJudgedIf(list.length === 0, 'no text in the replies of the conversation.');
  const over = longTexts(list);
  expect(over, `texts over ${LIMITS.botTextMax} characters are not sent to the visitor: ${over.join('; ')}`).toEqual([]);
});

test('every bot text is at most 250 characters (advised)', clauses('CONN-TEXT-02'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const list = texts(run);
  notJudgedIf(list.length === 0, 'no text in the replies of the conversation.');
  const over = longTexts(list, LIMITS.botTextAdvised);
  expect(over, `texts are advised to be at most ${LIMITS.botTextAdvised} characters: ${over.join('; ')}`).toEqual([]);
});

test('a message has at most 3 quick replies (advised)', clauses('CONN-QR-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const counts = allReplies(run).flatMap((r) => quickReplyCounts(r.replies, r.origin));
  notJudgedIf(counts.length === 0, 'no quick replies in the conversation.');
  const over = counts.filter((c) => c.value > LIMITS.quickRepliesAdvised).map((c) => `${c.where}: ${c.value} quick replies`);
  expect(over, `at most ${LIMITS.quickRepliesAdvised} quick replies per question are advised: ${over.join('; ')}`).toEqual([]);
});

const transfers = (run: ConversationRun) => allReplies(run).flatMap((r) => transfersOf(r.replies, r.origin));

test('transfer timeouts are between 5 and 60 s', clauses('CONN-TRANSFER-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const list = transfers(run);
  notJudgedIf(list.length === 0, 'no transfer reply in the conversation.');
  const bad = list.filter((t) => t.timeoutMs === undefined || t.timeoutMs < LIMITS.transferTimeoutMinMs || t.timeoutMs > LIMITS.transferTimeoutMaxMs).map((t) => `${t.where}: ${t.timeoutMs ?? 'unreadable'} ms`);
  expect(bad, `transfer timeouts must be ${LIMITS.transferTimeoutMinMs}-${LIMITS.transferTimeoutMaxMs} ms: ${bad.join('; ')}`).toEqual([]);
});

test('transfer timeouts are at least 15 s (advised)', clauses('CONN-TRANSFER-02'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const list = transfers(run).filter((t) => t.timeoutMs !== undefined);
  notJudgedIf(list.length === 0, 'no transfer reply with a readable timeout in the conversation.');
  const low = list.filter((t) => t.timeoutMs! < LIMITS.transferTimeoutAdvisedMinMs).map((t) => `${t.where}: ${t.timeoutMs} ms`);
  expect(low, `transfer timeouts are advised not below ${LIMITS.transferTimeoutAdvisedMinMs} ms: ${low.join('; ')}`).toEqual([]);
});

test('transfers name a distribution rule given in the bot write body', clauses('CONN-TRANSFER-03'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const list = transfers(run);
  notJudgedIf(list.length === 0, 'no transfer reply in the conversation.');
  // Which rules were given is known only of a bot created with them (G36).
  needsBot(run.setup);
  const given = run.setup.body.distributionRules.map((r) => r.id);
  const unknown = unknownTransferRules(list, given);
  expect(unknown, `a transfer must name one of the rules given (${run.setup.body.distributionRules.map((r) => `${r.label}=${r.id}`).join(', ')}): ${unknown.join('; ')}`).toEqual([]);
});

test('linked images are reachable 240x120 pictures', clauses('CONN-IMAGE-01'), async ({ connector, conversation, target }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const images = allReplies(run).flatMap((r) => imagesOf(r.replies, r.origin));
  notJudgedIf(images.length === 0, 'no image in the conversation.');
  const urls = [...new Set(images.map((i) => String(i.value.url)))];
  const probes = await Promise.all(urls.map((u) => probeImage(u, agentFor(target.ca_file), abortAfter(LIMIT_OF.config))));
  await test.info().attach('images probed', { body: mask(JSON.stringify(probes, null, 2)), contentType: 'application/json' });
  const problems = probes.map(imageProblem).filter((p): p is string => p !== null);
  expect(problems, `images must be reachable ${LIMITS.imageWidth}x${LIMITS.imageHeight} pictures: ${problems.join('; ')}`).toEqual([]);
});

test('bundle items are valid cards and offers', clauses('CONN-BUNDLE-01'), async ({ connector, conversation }) => {
  void connector;
  const run = await conversation();
  await attachAnswers(run);
  const all = allReplies(run);
  notJudgedIf(all.every((r) => bundlesOf(r.replies, r.origin).length === 0), 'no bundle/* payload in the conversation.');
  const problems = all.flatMap((r) => bundleProblems(r.replies, r.origin)).map((p) => `${p.where}: ${p.value}`);
  expect(problems, `bundle/card items must be card/content with a LINK action, bundle/product-offer items product-offer: ${problems.join('; ')}`).toEqual([]);
});
