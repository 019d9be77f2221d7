// Connector checks of the configuration endpoints 1-4 (scenarios, bot creation and reading, availability strategies), HTTPS, JSON answers, signature and G8 timings.
import { test, expect, clauses, attachExchanges, attachFailing, is2xx, needsBot, answeredWithoutBot, notRefused, ENDPOINT_NAME } from './check-fixtures.js';
import { notJudged, notJudgedIf } from '../verdicts.js';
import { exchangesOf } from '../../check/conversation.js';
import { botCreated, endpointAbsent, refusedAuth } from '../../check/evidence.js';
import { describe, brief, type Exchange } from '../../check/connector-client.js';
import { excerpt } from '../../check/evidence.js';
import { dateWarningsOf, unlistedFields } from '../../check/judge.js';
import { note, warn } from '../verdicts.js';
import { dateProblems, isConditionalError, isDateError, schemaErrors, unknownRules } from '../../check/judge.js';
import { abortAfter, LIMIT_OF, timingText, withinLimit } from '../../check/timing.js';
import { visitorMessage } from '../../check/connector-client.js';
import { randomUUID } from 'node:crypto';

const CONFIG_TIMEOUT = abortAfter(LIMIT_OF.config);
/** A reason: what was sent and what came back, then what the spec asks. */
const judged = (asks: string, ex: Exchange) => `${describe(ex)}; ${asks}`;

test('the connector URL is HTTPS', clauses('CONN-HTTPS-01'), async ({ connector }) => {
  test.skip(!connector.url.startsWith('https://') && connector.allowHttp, 'plain http accepted by --allow-http for local development: this URL would be refused by the service');
  expect(connector.url, `the connector URL ${connector.url} must use HTTPS: the service only calls https:// connectors`).toMatch(/^https:\/\//);
});

test('GET /external-bots answers an array of Scenario', clauses('CONN-EP1-01'), async ({ client }) => {
  const ex = await client.call(1, 'GET', '/external-bots', { timeoutMs: CONFIG_TIMEOUT });
  notRefused(ex);
  expect(is2xx(ex), judged('the spec asks for a 2xx answer with an array of Scenario', ex)).toBe(true);
  expect(Array.isArray(ex.json), judged('the spec asks for a JSON array of Scenario', ex)).toBe(true);
  // Extra properties and the URI format have their own clauses (CONN-EP1-02, CONN-EP1-03).
  const errors = schemaErrors('connector/scenarios.json', ex.json, (e) => e.keyword === 'additionalProperties' || /\/editorUrl$/.test(e.instancePath));
  expect(errors, `scenarios do not match connector/scenario.json: ${errors}`).toBeNull();
});

test('Scenario items have no additional properties', clauses('CONN-EP1-02'), async ({ client }) => {
  const ex = await client.call(1, 'GET', '/external-bots', { timeoutMs: CONFIG_TIMEOUT });
  notJudgedIf(!Array.isArray(ex.json), `GET /external-bots did not answer an array (${brief(ex)}; see CONN-EP1-01)`);
  // An empty list has no item whose properties could be judged.
  notJudgedIf((ex.json as unknown[]).length === 0, 'GET /external-bots listed no scenario: no item to judge (see CONN-EP1-04)');
  const extra = (ex.json as unknown[]).flatMap((item, i) => (item && typeof item === 'object' ? Object.keys(item).filter((k) => !['idBot', 'name', 'description', 'editorUrl'].includes(k)).map((k) => `[${i}].${k}`) : []));
  expect(extra, `scenario items carry properties the spec does not allow: ${extra.join(', ')}`).toEqual([]);
});

test('Scenario editorUrl is a URI', clauses('CONN-EP1-03'), async ({ client }) => {
  const ex = await client.call(1, 'GET', '/external-bots', { timeoutMs: CONFIG_TIMEOUT });
  notJudgedIf(!Array.isArray(ex.json) || (ex.json as unknown[]).length === 0, `GET /external-bots answered no scenario (${brief(ex)}; see CONN-EP1-01/04)`);
  const bad = (ex.json as any[]).flatMap((item, i) => {
    const u = item?.editorUrl;
    let ok = false;
    try { ok = typeof u === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(u) && Boolean(new URL(u)); } catch { ok = false; }
    return ok ? [] : [`[${i}].editorUrl = ${JSON.stringify(u)}`];
  });
  expect(bad, `editorUrl must be a URI of the integrator's editor: ${bad.join(', ')}`).toEqual([]);
});

test('GET /external-bots lists at least one scenario', clauses('CONN-EP1-04'), async ({ client, bot }) => {
  const ex = await client.call(1, 'GET', '/external-bots', { timeoutMs: CONFIG_TIMEOUT });
  // An endpoint that does not exist lists nothing (a failure); any other answer without a list is judged by CONN-EP1-01.
  notJudgedIf(!Array.isArray(ex.json) && !endpointAbsent(ex, bot.notFound), `GET /external-bots answered no list (${describe(ex)}; see CONN-EP1-01)`);
  expect(Array.isArray(ex.json) ? (ex.json as unknown[]).length : 0, judged('the spec asks for at least one scenario (a bot agent selects one; one per bot operator)', ex)).toBeGreaterThanOrEqual(1);
});

test('PUT /bots/{idOperator} answers a Bot', clauses('CONN-EP2-01'), async ({ bot }) => {
  notRefused(bot.put);
  expect(is2xx(bot.put), judged('the spec asks for a 2xx answer with the Bot (the service creates every bot agent this way)', bot.put)).toBe(true);
  // The dates have their own clause (CONN-BOT-DATES-01).
  const errors = schemaErrors('connector/bot.json', bot.put.json, isDateError);
  expect(errors, `PUT answer does not match connector/bot.json: ${errors}`).toBeNull();
  const extra = unlistedFields('connector/bot.json', bot.put.json);
  if (extra.length) note(`the Bot answered fields beyond those listed (tolerated, G25): ${extra.join(', ')}`);
});

test('the Bot answered by PUT has the idOperator of the path and the idBot of the body', clauses('CONN-EP2-02'), async ({ bot }) => {
  needsBot(bot);
  notJudgedIf(!is2xx(bot.put) || !bot.put.json || typeof bot.put.json !== 'object', `PUT /bots answered no Bot (${brief(bot.put)}; see CONN-EP2-01)`);
  const b = bot.put.json as any;
  expect(b?.idOperator, `idOperator must be the one of the path (${bot.idOperator})`).toBe(bot.idOperator);
  expect(b?.external?.idBot, `external.idBot must be the scenario given in the body (${bot.idBot})`).toBe(bot.idBot);
});

test('GET /bots/{idOperator} answers the Bot created', clauses('CONN-EP3-01'), async ({ bot, client }) => {
  const ex = await client.call(3, 'GET', `/bots/${encodeURIComponent(bot.idOperator)}`, { timeoutMs: CONFIG_TIMEOUT });
  needsBot(bot, ex);
  notRefused(ex);
  expect(is2xx(ex), judged('the spec asks for a 2xx answer with the Bot that PUT created', ex)).toBe(true);
  const errors = schemaErrors('connector/bot.json', ex.json, isDateError);
  expect(errors, `GET answer does not match connector/bot.json: ${errors}`).toBeNull();
});

test('the Bot answered by GET has the same idOperator and idBot', clauses('CONN-EP3-02'), async ({ bot, client }) => {
  // Ids that "match" without a bot created prove nothing (a connector may echo the path's id).
  needsBot(bot);
  const ex = await client.call(3, 'GET', `/bots/${encodeURIComponent(bot.idOperator)}`, { timeoutMs: CONFIG_TIMEOUT });
  notJudgedIf(!is2xx(ex) || !ex.json || typeof ex.json !== 'object', `GET /bots answered no Bot (${brief(ex)}; see CONN-EP3-01)`);
  expect((ex.json as any)?.idOperator, `idOperator must be the one created (${bot.idOperator})`).toBe(bot.idOperator);
  expect((ex.json as any)?.external?.idBot, `external.idBot must be the scenario of the bot (${bot.idBot})`).toBe(bot.idBot);
});

test('Bot createdAt and updatedAt are ISO 8601 date-times', clauses('CONN-BOT-DATES-01'), async ({ bot, client }) => {
  needsBot(bot);
  const get = await client.call(3, 'GET', `/bots/${encodeURIComponent(bot.idOperator)}`, { timeoutMs: CONFIG_TIMEOUT });
  const answers = [['PUT', bot.put], ['GET', get]] as const;
  const judgeable = answers.filter(([, ex]) => is2xx(ex) && ex.json && typeof ex.json === 'object');
  notJudgedIf(judgeable.length === 0, 'neither PUT nor GET /bots/{idOperator} answered a Bot (see CONN-EP2-01, CONN-EP3-01)');
  const problems = judgeable.flatMap(([m, ex]) => dateProblems(ex.json, false).map((p) => `${m}: ${p}`));
  expect(problems, `Bot dates must be non-empty ISO 8601 date-times: ${problems.join('; ')}`).toEqual([]);
  const variants = dateWarningsOf(judgeable.map(([, ex]) => ex.json), false);
  if (variants.length) warn(variants.join('; '));
});

async function strategies(client: import('../../check/connector-client.js').ConnectorClient, idOperator: string): Promise<Exchange> {
  return client.call(4, 'GET', '/availability-strategies', { query: { idOperator }, timeoutMs: CONFIG_TIMEOUT });
}

test('GET /availability-strategies answers an array of availability strategy', clauses('CONN-EP4-01'), async ({ bot, client }) => {
  const ex = await strategies(client, bot.idOperator);
  answeredWithoutBot(bot, ex, true);
  notRefused(ex);
  expect(is2xx(ex), judged('the spec asks for a 2xx answer with an array of availability strategy (the service polls it about once per second)', ex)).toBe(true);
  expect(Array.isArray(ex.json), judged('the spec asks for a JSON array of availability strategy', ex)).toBe(true);
  const errors = schemaErrors('connector/availability-strategies.json', ex.json, isConditionalError(['distributionRulesToCheck', 'availability']));
  expect(errors, `strategies do not match connector/availability-strategy.json: ${errors}`).toBeNull();
});

test('distributionRulesToCheck is given for atLeastOne/all and is a subset of the rules given', clauses('CONN-EP4-02'), async ({ bot, client }) => {
  const ex = await strategies(client, bot.idOperator);
  answeredWithoutBot(bot, ex);
  const list = Array.isArray(ex.json) ? (ex.json as any[]) : [];
  const ruled = list.filter((s) => s?.strategy === 'atLeastOne' || s?.strategy === 'all');
  notJudgedIf(ruled.length === 0, `no atLeastOne/all strategy answered (${describe(ex)})`);
  const missing = ruled.filter((s) => !Array.isArray(s.distributionRulesToCheck)).map((s) => s.strategy);
  expect(missing, `distributionRulesToCheck is required for ${missing.join(', ')}`).toEqual([]);
  // Which rules were given is known only of a bot created with them (G36).
  needsBot(bot);
  const given = bot.body.distributionRules.map((r) => r.id);
  const unknown = unknownRules(ruled, given);
  expect(unknown, `distributionRulesToCheck must be among the rules of the bot write body (${given.join(', ')}); unknown: ${unknown.join('; ')}`).toEqual([]);
});

test('availability is given for customAvailability', clauses('CONN-EP4-03'), async ({ bot, client }) => {
  const ex = await strategies(client, bot.idOperator);
  answeredWithoutBot(bot, ex);
  const custom = (Array.isArray(ex.json) ? (ex.json as any[]) : []).filter((s) => s?.strategy === 'customAvailability');
  notJudgedIf(custom.length === 0, `no customAvailability strategy answered (${describe(ex)})`);
  const bad = custom.filter((s) => typeof s.availability !== 'boolean').map((s) => JSON.stringify(s));
  expect(bad, `customAvailability needs availability (Boolean): ${bad.join(', ')}`).toEqual([]);
});

test('configuration endpoints 1-4 and 6 answer within 10 s', clauses('CONN-TIME-01'), async ({ bot, client }) => {
  const id = encodeURIComponent(bot.idOperator);
  const calls = [
    bot.scenarios,
    bot.put,
    await client.call(3, 'GET', `/bots/${id}`, { timeoutMs: CONFIG_TIMEOUT }),
    await strategies(client, bot.idOperator),
    await client.call(6, 'POST', '/conversations', { body: { idOperator: bot.idOperator, idConversation: randomUUID(), history: [] }, timeoutMs: CONFIG_TIMEOUT }),
  ];
  // Evidence of answering in time is an answer (2xx); no answer is never in time (a reset or a timeout fails the limit, with its
  // transport cause). A refusal or an endpoint that does not exist says nothing about the time the connector takes to answer.
  // Without a bot, no answer from an endpoint naming the checker's own idOperator is no evidence (G36).
  const judgedCalls = calls.filter((ex) => is2xx(ex) || (ex.error !== undefined && (botCreated(bot.put) || ex.endpoint <= 2)));
  const left = calls.filter((ex) => !judgedCalls.includes(ex));
  await attachExchanges('configuration calls (those answered 2xx or not at all are judged)', calls);
  notJudgedIf(judgedCalls.length === 0, `the connector answered no configuration call with 2xx (${left.map(describe).join('; ')}; see CONN-AUTH-02, CONN-EP1-01)`);
  const late = judgedCalls.filter((ex) => ex.error !== undefined || !withinLimit(ex.ms, LIMIT_OF.config));
  const name = (ex: Exchange) => ENDPOINT_NAME[ex.endpoint] ?? `${ex.method} ${ex.path}`;
  const endpoints = (list: Exchange[]) => [...new Set(list.map((ex) => `endpoint ${ex.endpoint}`))].join(', ');
  const scope = `judged on ${endpoints(judgedCalls)}${left.length ? ` (not on ${endpoints(left)}, which answered no 2xx)` : ''}`;
  await test.info().attach('what was judged', { body: scope, contentType: 'text/plain' });
  expect(late.map((ex) => ex.error ? describe(ex) : timingText(name(ex), ex.ms, LIMIT_OF.config)), `configuration endpoints must answer within 10 s (G8); ${scope}`).toEqual([]);
});

test('every connector answer is JSON', clauses('CONN-JSON-01'), async ({ bot, client, conversation }) => {
  const id = encodeURIComponent(bot.idOperator);
  const idConversation = randomUUID();
  const start = await client.call(6, 'POST', '/conversations', { body: { idOperator: bot.idOperator, idConversation, history: [] }, timeoutMs: CONFIG_TIMEOUT });
  const conv = typeof (start.json as any)?.idConversation === 'string' ? (start.json as any).idConversation : idConversation;
  const calls = [
    bot.scenarios, bot.put,
    await client.call(3, 'GET', `/bots/${id}`, { timeoutMs: CONFIG_TIMEOUT }),
    await strategies(client, bot.idOperator),
    await client.call(5, 'GET', `/bots/${id}/conversation-first-messages`, { timeoutMs: abortAfter(LIMIT_OF.firstMessages) }),
    start,
    await client.call(7, 'POST', `/conversations/${encodeURIComponent(conv)}/messages`, { body: { idOperator: bot.idOperator, message: visitorMessage('Hello') }, timeoutMs: abortAfter(LIMIT_OF.message) }),
  ];
  // The scripted conversation's answers too (echoes of the bot's messages included): every response is JSON.
  const all = [...calls, ...exchangesOf(await conversation()).filter((ex) => ex.endpoint !== 0)];
  // Without a bot, only the 2xx answers of the endpoints naming the checker's own idOperator are evidence (G36).
  const answered = all.filter((ex) => ex.error === undefined && (botCreated(bot.put) || ex.endpoint <= 2 || is2xx(ex)));
  notJudgedIf(answered.length === 0, `no call got an answer (${describe(all[0]!)})`);
  const failing = [...new Map(answered.filter((ex) => ex.json === undefined).map((ex) => [`${ex.method} ${ex.endpoint}`, ex])).values()];
  // The calls that failed first (the reproduction replays them), then the others judged.
  await attachFailing(failing);
  await attachExchanges('answers judged', calls);
  const notJson = failing
    .map((ex) => `${ex.method} ${ex.path} answered ${ex.status} ${ex.contentType ? `(${ex.contentType.split(';')[0]}) ` : ''}${ex.text ? `"${excerpt(ex, 60)}"` : 'with an empty body'}`);
  expect(notJson, `every connector response must be JSON (a parsable body): ${notJson.join('; ')}`).toEqual([]);
});

const refused = (ex: Exchange) => ex.status !== undefined && ex.status >= 400 && ex.status <= 499;
const UNSIGNED = '--unsigned: calls carry no signature (a connector under development); the signature clauses are not judged';

test('a correctly signed call is accepted', clauses('CONN-AUTH-02'), async ({ connector, conversation }) => {
  test.skip(connector.unsigned, UNSIGNED);
  // Every call of the scripted conversation is signed as G2 says: evidence is a call accepted, or one refused for its
  // credentials (401/403). An endpoint that does not exist (404), a server error or no answer says nothing about signatures.
  const run = await conversation();
  const calls = exchangesOf(run).filter((ex) => ex.endpoint !== 0);
  const refusedCalls = calls.filter(refusedAuth);
  const accepted = calls.filter(is2xx);
  await attachExchanges('the signed calls of the scripted conversation', [...refusedCalls, ...accepted].slice(0, 10));
  const endpoints = (list: Exchange[]) => [...new Set(list.map((ex) => ex.endpoint))].sort().map((n) => `endpoint ${n}`).join(', ');
  notJudgedIf(refusedCalls.length === 0 && accepted.length === 0, `no signed call was accepted or refused for its credentials (${[...new Map(calls.map((ex) => [ex.endpoint, describe(ex)])).values()].slice(0, 3).join('; ')}): nothing to judge the signature on`);
  expect(refusedCalls.map(describe), `calls signed with the connector's secret as G2 says must be accepted, else the service cannot use the connector${accepted.length ? ` (accepted on ${endpoints(accepted)}: compare how ${endpoints(refusedCalls)} ${refusedCalls.some((ex) => ex.method === 'GET') ? 'verify the signature of a GET, over the raw query string' : 'verify the signature'})` : ''}`).toEqual([]);
});

/** The twin of the unsigned calls: a correctly signed call the connector accepts (endpoint 1, else endpoint 6), or none. */
async function acceptedTwin(client: import('../../check/connector-client.js').ConnectorClient, idOperator: string): Promise<{ twin?: Exchange; tried: Exchange[]; again: (signature: 'wrong' | 'missing') => Promise<Exchange> }> {
  const list = () => client.call(1, 'GET', '/external-bots', { timeoutMs: CONFIG_TIMEOUT, label: 'GET /external-bots correctly signed (the twin)' });
  const body = { idOperator, idConversation: randomUUID(), history: [] };
  const open = (signature: 'valid' | 'wrong' | 'missing') => client.call(6, 'POST', '/conversations', { body, signature, timeoutMs: CONFIG_TIMEOUT, label: `POST /conversations ${signature === 'valid' ? 'correctly signed (the twin)' : `with a ${signature} signature`}` });
  const tried = [await list()];
  if (is2xx(tried[0]!)) return { twin: tried[0], tried, again: (signature) => client.call(1, 'GET', '/external-bots', { signature, timeoutMs: CONFIG_TIMEOUT, label: `GET /external-bots with a ${signature} signature` }) };
  tried.push(await open('valid'));
  return { twin: is2xx(tried[1]!) ? tried[1] : undefined, tried, again: (signature) => open(signature) };
}

test('a call with a wrong or missing signature is refused', clauses('CONN-AUTH-01'), async ({ connector, client, bot }) => {
  test.skip(connector.unsigned, UNSIGNED);
  // A refusal proves something only if the same call correctly signed is accepted: the twin.
  const { twin, tried, again } = await acceptedTwin(client, bot.idOperator);
  if (!twin) {
    await attachExchanges('correctly signed calls, none accepted', tried);
    const all = tried.every(refusedAuth);
    notJudged(`no correctly signed call was accepted (${tried.map(describe).join('; ')})${all ? ': the connector refuses every call' : ''}, so a refusal of bad signatures would prove nothing (see CONN-AUTH-02)`);
  }
  const wrong = await again('wrong');
  const missing = await again('missing');
  await attachExchanges('the signed twin and the two unsigned calls', [twin!, wrong, missing]);
  expect(refused(wrong), judged('a connector may refuse a wrongly signed call with 4xx (G2)', wrong)).toBe(true);
  expect(refused(missing), judged('a connector may refuse an unsigned call with 4xx (G2)', missing)).toBe(true);
});
