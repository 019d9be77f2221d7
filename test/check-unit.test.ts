// Unit tests of the check code: the signing client (query parameters, G2 bytes), the pure judgements, image measurement, webhook samples and the CLI's argument rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { verify } from '../lib/signature.js';
import type { HttpAnswer, HttpRequest } from '../lib/http.js';
import { ConnectorClient, botWriteBody, describe, visitorMessage, zonedNow, type Exchange } from '../check/connector-client.js';
import { endpointAbsent, excerpt, markupText } from '../check/evidence.js';
import { concurrencyProblems, replySummary, type Held } from '../check/concurrency.js';
import { exchangesCurl, withDependencies } from '../check/reproduce.js';
import type { ConversationRun } from '../check/conversation.js';
import { briefReason, firstSentence } from '../cli/run.js';
import { conversationIdWarning, dateWarnings, unlistedFields } from '../check/judge.js';
import { bundleProblems, dateProblems, durationMs, imagesOf, isIsoDateTime, quickReplyCounts, replyProblems, textsOf, transfersOf, unknownRules } from '../check/judge.js';
import { imageProblem } from '../check/image.js';
import { assertSampleShape, deliveryHeaders, samples } from '../check/webhook-samples.js';
import { validateCheckArgs } from '../cli/commands/check.js';
import { UsageError, commaList } from '../cli/usage.js';
import { withinLimit, TIMING_TOLERANCE_MS, timingText } from '../check/timing.js';
import { check } from '../lib/schemas.js';
import { DEFAULT_SCRIPT, parseScript } from '../check/settings.js';

const settings = { url: 'https://bot.example', secret: 's3cret-key', connectorVersion: '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', website: '42', language: 'fr', allowHttp: false, unsigned: false, conversations: 3, script: [...DEFAULT_SCRIPT], origin: 'ces check' as const };

function recordingClient() {
  const sent: HttpRequest[] = [];
  const send = async (req: HttpRequest): Promise<HttpAnswer> => { sent.push(req); return { status: 200, headers: { 'content-type': 'application/json' }, text: '[]', json: [], ms: 5 }; };
  return { client: new ConnectorClient(settings, send), sent };
}

test('client: GET carries idConnectorVersion and idWebsite and signs the raw query string (G2)', async () => {
  const { client, sent } = recordingClient();
  const ex = await client.call(4, 'GET', '/availability-strategies', { query: { idOperator: 'op 1' }, timeoutMs: 1000 });
  const url = new URL(sent[0]!.url);
  assert.equal(url.searchParams.get('idConnectorVersion'), settings.connectorVersion);
  assert.equal(url.searchParams.get('idWebsite'), '42');
  assert.equal(url.searchParams.get('idOperator'), 'op 1');
  const raw = sent[0]!.url.split('?')[1]!;
  assert.equal(ex.signed, raw);
  assert.deepEqual(verify(settings.secret, raw, sent[0]!.headers!['x-service-signature']), { ok: true });
  assert.equal(ex.status, 200);
});

test('client: PUT/POST sign the raw body; wrong and missing signatures are what they say', async () => {
  const { client, sent } = recordingClient();
  await client.call(2, 'PUT', '/bots/op-1', { body: botWriteBody('demo', 'fr'), timeoutMs: 1000 });
  const body = String(sent[0]!.body);
  assert.deepEqual(verify(settings.secret, body, sent[0]!.headers!['x-service-signature']), { ok: true });
  assert.ok(new URL(sent[0]!.url).searchParams.get('idConnectorVersion'));
  await client.call(1, 'GET', '/external-bots', { signature: 'wrong', timeoutMs: 1000 });
  assert.equal(verify(settings.secret, sent[1]!.url.split('?')[1]!, sent[1]!.headers!['x-service-signature']).ok, false);
  await client.call(1, 'GET', '/external-bots', { signature: 'missing', timeoutMs: 1000 });
  assert.equal(sent[2]!.headers!['x-service-signature'], undefined);
});

test('client: a network error becomes an exchange with the error and the measured time', async () => {
  // The send fails after 30 ms, as a transport error does: the exchange measures the time until then, not zero.
  const client = new ConnectorClient(settings, async () => { await new Promise((r) => setTimeout(r, 30)); throw new Error('Headers Timeout Error'); });
  const ex = await client.call(7, 'POST', '/conversations/x/messages', { body: {}, timeoutMs: 10 });
  assert.equal(ex.status, undefined);
  assert.match(ex.error!, /Timeout/);
  assert.ok(ex.ms >= 25, `measured ${ex.ms} ms for a call that failed after 30 ms`);
});

test('bodies the checker sends match the connector request schemas', () => {
  assert.equal(check('connector/bot-write.json', botWriteBody('demo', 'fr')), null);
  assert.equal(check('connector/message-post.json', { idOperator: 'op', message: visitorMessage('hi') }), null);
  assert.match(zonedNow(), /\[UTC\]$/);
});

test('durations and ISO dates', () => {
  assert.equal(durationMs({ unit: 'seconds', value: 15 }), 15_000);
  assert.equal(durationMs({ unit: 'minutes', value: 1 }), 60_000);
  assert.equal(durationMs({ unit: 'millis', value: 5 }), 5);
  assert.equal(durationMs({ unit: 'hours', value: 1 }), undefined);
  assert.ok(isIsoDateTime('2026-11-22T01:02:03.456Z'));
  assert.ok(isIsoDateTime('2026-11-22T01:02:03+01:00'));
  for (const bad of ['', '2026-11-22', '2026-11-22 01:02:03', 'yesterday', 12, '2026-13-45T99:99:99Z']) assert.equal(isIsoDateTime(bad), false, String(bad));
  assert.deepEqual(dateProblems({ createdAt: '2026-11-22T01:02:03Z', updatedAt: '2026-11-22T01:02:03Z' }, false), []);
  assert.equal(dateProblems({ createdAt: '', updatedAt: '2026-11-22T01:02:03Z' }, false).length, 1);
  assert.deepEqual(dateProblems({ createdAt: '2026-11-22T01:02:03Z', updateAt: '2026-11-22T01:02:03Z' }, true), [], 'updateAt accepted where allowed');
  assert.equal(dateProblems({ createdAt: '2026-11-22T01:02:03Z', updateAt: '2026-11-22T01:02:03Z' }, false).length, 1, 'but not for a Bot');
  // G24: offset and fraction optional; Java's zoned form valid with a WARN; empty and non-dates fail.
  for (const ok of ['2026-11-22T01:02:03', '2026-11-22T01:02', '2026-11-22T01:02:03,5+0100', '2026-11-22T01:02:03.123456789-05:00']) assert.ok(isIsoDateTime(ok), ok);
  assert.ok(isIsoDateTime('2024-05-01T10:00:00Z[Etc/UTC]'));
  for (const bad of ['2026-02-30T01:02:03Z', '2026-11-22T24:00:00Z', '2026-11-22T01:02:03Z[', 'T01:02']) assert.equal(isIsoDateTime(bad), false, bad);
  const java = { createdAt: '2024-05-01T10:00:00Z[Etc/UTC]', updatedAt: '2024-05-01T10:00:00.5Z[Europe/Paris]' };
  assert.deepEqual(dateProblems(java, false), []);
  assert.equal(dateWarnings(java, false).length, 2);
  assert.match(dateWarnings(java, false)[0]!, /Java's zoned form .*"2024-05-01T10:00:00Z"/);
  assert.deepEqual(dateWarnings({ createdAt: '2026-11-22T01:02:03Z', updatedAt: '2026-11-22T01:02:03Z' }, false), []);
  // G23: the connector's own id is joined; a non-UUID is a WARN.
  assert.equal(conversationIdWarning('3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90'), null);
  assert.match(conversationIdWarning('conv-17') ?? '', /own id and not a UUID/);
  assert.equal(check('connector/conversation.json', { idConversation: 'conv-17', idOperator: 'op', replies: [], createdAt: java.createdAt, updatedAt: java.updatedAt }), null, 'schema-valid (G23, G24)');
  assert.notEqual(check('connector/conversation.json', { idConversation: '', idOperator: 'op', replies: [], createdAt: '', updatedAt: 'x' }), null, 'empty ids and dates still fail');
  // G25: fields beyond those listed are named (a NOTE), never an error.
  assert.deepEqual(unlistedFields('connector/conversation.json', { idConversation: 'c', idOperator: 'o', replies: [], createdAt: 'x', locale: 'en', _links: {} }), ['locale', '_links']);
});

const card = (extra: object = {}) => ({ contentType: 'card/content', title: 'T', text: 'card text', image: { url: 'https://x/i.png', description: 'd' }, actions: [{ type: 'LINK', name: 'n', url: 'https://x' }], ...extra });
const replies = [
  { type: 'message', payload: { contentType: 'text', value: 'a'.repeat(451) }, quickReplies: [1, 2, 3, 4].map((i) => ({ contentType: 'text/quick-reply', value: `q${i}`, idQuickReply: '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a9' + i })) },
  { type: 'message', payload: { contentType: 'bundle/card', cards: [card(), card({ actions: undefined })] } },
  { type: 'transfer', distributionRule: '3f0c4d8e-8b1a-4c53-9a57-2f4d7e1b6a90', transferOptions: { timeout: { unit: 'seconds', value: 3 } } },
  { type: 'transfer', distributionRule: 'r2' },
  { type: 'close' },
];

test('judgements find texts, quick replies, transfers (60 s default), images and broken bundle items', () => {
  const texts = textsOf(replies, 'x');
  assert.deepEqual(texts.map((t) => t.value.length), [451, 9, 9]);
  assert.deepEqual(quickReplyCounts(replies, 'x').map((q) => q.value), [4]);
  assert.deepEqual(transfersOf(replies, 'x').map((t) => [t.timeoutMs, t.explicit]), [[3_000, true], [60_000, false]]);
  assert.equal(imagesOf(replies, 'x').length, 2);
  const bundle = bundleProblems(replies, 'x');
  assert.equal(bundle.length, 1);
  assert.match(bundle[0]!.where, /cards\[1\]/);
  const schema = replyProblems(replies, 'x');
  assert.equal(schema.length, 2, 'the card without actions and the rule that is not a UUID break connector/reply.json');
  assert.match(schema[0]!, /cards\/1 must have required property 'actions'/);
  assert.match(schema[1]!, /distributionRule must match format "uuid"/);
  assert.equal(replyProblems([{ type: 'await' }], 'x').length, 1);
  assert.deepEqual(unknownRules([{ strategy: 'all', distributionRulesToCheck: ['a', 'b'] }], ['a']), ['[0] all: "b"']);
});

test('images: 240x120 PNG passes; other sizes, non-pictures and errors are described', async () => {
  const { imageSize } = await import('image-size');
  const png = (w: number, h: number) => PNG.sync.write(new PNG({ width: w, height: h }));
  const d = imageSize(new Uint8Array(png(240, 120)));
  assert.equal(imageProblem({ url: 'u', status: 200, width: d.width, height: d.height, type: d.type, ms: 1 }), null);
  assert.match(imageProblem({ url: 'u', status: 200, width: 300, height: 100, type: 'png', ms: 1 })!, /300x100, expected 240x120/);
  assert.match(imageProblem({ url: 'u', status: 404, ms: 1 })!, /404/);
  assert.match(imageProblem({ url: 'u', ms: 1, error: 'ECONNREFUSED' })!, /not reachable/);
  assert.match(imageProblem({ url: 'u', status: 200, ms: 1, error: 'not a picture: unsupported' })!, /not a picture/);
});

test('webhook samples match their schemas and the delivery headers are the real ones', () => {
  const all = samples();
  assert.ok(all.length >= 13);
  for (const s of all) assertSampleShape(s);
  const raw = JSON.stringify(all[0]!.body);
  const h = deliveryHeaders('hook-secret', raw, { correlationId: 'c-1' });
  assert.equal(h['content-type'], 'application/json');
  assert.match(h['x-service-delivery']!, /^[0-9a-f-]{36}$/);
  assert.equal(h['x-service-correlationid'], 'c-1');
  assert.deepEqual(verify('hook-secret', raw, h['x-service-signature']), { ok: true });
  assert.equal(verify('hook-secret', raw, deliveryHeaders('hook-secret', raw, { signature: 'wrong' })['x-service-signature']).ok, false);
  assert.equal(deliveryHeaders('hook-secret', raw, { signature: 'missing' })['x-service-signature'], undefined);
});

test('timing: the tolerance is granted and stated', () => {
  assert.ok(withinLimit(10_000 + TIMING_TOLERANCE_MS, 10_000));
  assert.ok(!withinLimit(10_000 + TIMING_TOLERANCE_MS + 1, 10_000));
  assert.match(timingText('x', 12_000, 10_000), /answered in 12000 ms; limit 10000 ms \(\+100 ms harness tolerance\)/);
});

test('CLI arguments: bad URLs, schemes, UUIDs, languages and scripts are usage errors; http is not', () => {
  const ok = { what: 'connector' as const, url: 'https://x.example', secret: 's3cret' };
  assert.doesNotThrow(() => validateCheckArgs(ok));
  assert.doesNotThrow(() => validateCheckArgs({ ...ok, url: 'http://x.example' }), 'http:// is judged, not refused');
  for (const bad of [{ url: 'nope' }, { url: 'ftp://x' }, { 'connector-version': 'v1' }, { language: 'fra' }, { script: '[]' }, { 'ca-file': '/does/not/exist.pem' }]) {
    assert.throws(() => validateCheckArgs({ ...ok, ...bad }), UsageError, JSON.stringify(bad));
  }
  assert.deepEqual(parseScript('["a", "@quick-reply"]'), ['a', '@quick-reply']);
  assert.throws(() => validateCheckArgs({ ...ok, secret: undefined }), /--secret is missing: .*--unsigned/);
  assert.throws(() => validateCheckArgs({ ...ok, what: 'webhook-receiver', secret: '' }), /--secret is empty: give the subscription's signing secret/);
  assert.doesNotThrow(() => validateCheckArgs({ ...ok, secret: undefined, unsigned: true }), '--unsigned: a partner under development');
  for (const n of [0, 21, 1.5]) assert.throws(() => validateCheckArgs({ ...ok, conversations: n }), /--conversations/);
});

// ---- evidence (issue 25): what an answer is evidence of, reasons, reproductions --------------------------------------------

const ex = (over: Partial<Exchange>): Exchange => ({ endpoint: 3, method: 'GET', path: '/bots/op-1', url: 'https://bot.example/bots/op-1?idWebsite=1', signed: 'idWebsite=1', ms: 12, ...over });
const routeMissing = (method: string, p: string): Partial<Exchange> => ({ status: 404, contentType: 'application/json; charset=utf-8', text: JSON.stringify({ message: `Route ${method}:${p} not found`, error: 'Not Found', statusCode: 404 }) });

test('an endpoint that does not exist: 405 and 501, a 404 of endpoints 1, 2 and 6, or a 404 answered as a path that does not exist; an unknown bot is not that', () => {
  const probe = ex({ endpoint: 0, path: '/ces-check-no-such-endpoint', url: 'https://bot.example/ces-check-no-such-endpoint?idWebsite=1', ...routeMissing('GET', '/ces-check-no-such-endpoint') });
  assert.equal(endpointAbsent(ex({ ...routeMissing('GET', '/bots/op-1') }), probe), true, 'the framework\'s 404 of an unknown route, path and method aside');
  assert.equal(endpointAbsent(ex({ method: 'PUT', endpoint: 2, ...routeMissing('PUT', '/bots/op-1') }), probe), true);
  assert.equal(endpointAbsent(ex({ status: 404, text: '{"error":"unknown bot"}' }), probe), false, 'a 404 of its own says the bot is unknown');
  assert.equal(endpointAbsent(ex({ status: 404, text: '{"error":"unknown bot"}' }), undefined), false, 'no probe: a 404 of endpoint 3 is not known to be a missing endpoint');
  assert.equal(endpointAbsent(ex({ status: 405 }), probe), true);
  assert.equal(endpointAbsent(ex({ endpoint: 1, status: 404, text: 'whatever' }), undefined), true, 'endpoint 1 names no resource that may be unknown');
  assert.equal(endpointAbsent(ex({ status: 401 }), probe), false);
  // Spring Boot's 404 carries a timestamp and the path: both aside, the same shape.
  const spring = (p: string, at: string) => ({ status: 404, contentType: 'application/json', text: JSON.stringify({ timestamp: at, status: 404, error: 'Not Found', path: p }) });
  assert.equal(endpointAbsent(ex(spring('/bots/op-1', '2026-01-01T10:00:00.123+00:00')), ex({ endpoint: 0, path: '/ces-check-no-such-endpoint', url: 'https://bot.example/ces-check-no-such-endpoint', ...spring('/ces-check-no-such-endpoint', '2026-01-01T10:00:01.456+00:00') })), true);
});

test('reasons: an excerpt of an answer is short and never escaped markup; a call is described by what came back', () => {
  const html = ex({ status: 502, text: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style><script>var a="<b>";</script></head><body><h1>Bad &amp; gone</h1></body></html>' });
  const text = excerpt(html, 60);
  assert.equal(text, '502 Bad Gateway Bad & gone', 'the text of the page, script and style left out');
  assert.doesNotMatch(describe(html), /<|&amp;|\\"/);
  assert.match(describe(html), /^GET \/bots\/op-1 → 502 502 Bad Gateway Bad & gone \(server error in the connector\) in 12 ms$/);
  assert.ok(excerpt(ex({ status: 500, text: 'x'.repeat(500) }), 80).length <= 80);
  // An unclosed tag costs one pass, not a regular expression's backtracking.
  assert.equal(markupText('<'.repeat(100_000)).trim(), '');
  assert.match(briefReason(`${'A first sentence that says what came back. '.repeat(3)}${'More detail about it, '.repeat(20)}`), /^A first sentence .* … \(whole reason in evidence\.html\)$/);
  // Whole sentences: never cut inside one (a first sentence without end, e.g. a list, is cut at a word past 600 characters).
  assert.equal(briefReason(`A first sentence, which is long: ${'x, '.repeat(90)}it ends here. A second one.`), `A first sentence, which is long: ${'x, '.repeat(90)}it ends here. … (whole reason in evidence.html)`);
  assert.equal(briefReason(`One. Two sentences fit. ${'Three is too long, '.repeat(20)}end.`), 'One. Two sentences fit. … (whole reason in evidence.html)');
  assert.ok(briefReason('word '.repeat(200)).length < 700);
  assert.equal(firstSentence('No bot was created (PUT /bots/x → 404; see CONN-EP2-01). The answer to GET /a → 404 says nothing.'), 'No bot was created (PUT /bots/x → 404; see CONN-EP2-01).');
  assert.equal(briefReason('short'), 'short');
});

test('schema errors: each once, without if/then noise, with the value that broke a format', () => {
  assert.deepEqual(replyProblems([{ type: 'transfer', distributionRule: 'x', transferOptions: {} }], 'answer'), [`answer replies[0]: /distributionRule must match format "uuid" (got "x"); /transferOptions must have required property 'timeout'`]);
});

test('G28: a call that got no answer held at once, answered held alone, is a problem; a correct one is not', () => {
  const answered = (json: unknown, ms = 20): Exchange => ex({ endpoint: 7, method: 'POST', status: 200, json, ms });
  const held = (steps: Exchange[], start = answered({ idConversation: 'c1', replies: [] })): Held => ({ script: ['Hi'], idConversation: 'c1', connectorConversationId: 'c1', start, steps: steps.map((e) => ({ text: 'Hi', exchange: e })) });
  const one = held([answered({ idConversation: 'c1', replies: [{ type: 'message', payload: { contentType: 'text', value: 'Hello!' } }] })]);
  const alone = [one, one];
  assert.deepEqual(concurrencyProblems(alone, alone), []);
  const hung = held([ex({ endpoint: 7, method: 'POST', error: 'Headers Timeout Error', ms: 11_100 })]);
  assert.match(concurrencyProblems(alone, [hung, hung]).join('\n'), /visitor message 1 \("Hi"\): held alone it was answered 200 in 20 ms; held with 1 other conversation\(s\) at once it got no answer within 11100 ms: no answer in time/);
  const unopened = held([], ex({ endpoint: 6, method: 'POST', error: 'socket hang up', ms: 5 }));
  unopened.stopped = true;
  assert.match(concurrencyProblems(alone, [unopened, unopened]).join('\n'), /POST \/conversations held alone was answered 200 .* at once it got no answer within 5 ms: connection reset/);
  assert.doesNotMatch(concurrencyProblems(alone, [unopened, unopened]).join('\n'), /took/, 'a run stopped on a failure is not compared by its number of steps');
  assert.ok(replySummary(answered({ replies: [{ type: 'message', payload: { contentType: 'text', value: 'x'.repeat(500) } }] })).length <= 100, 'never the whole JSON');
});

test('reproductions: a call of the conversation comes with the bot\'s creation, the opening and the earlier messages; an own conversation id is captured', () => {
  const put = ex({ endpoint: 2, method: 'PUT', path: '/bots/op-1', url: 'https://bot.example/bots/op-1?idWebsite=1', requestBody: { name: 'n' }, status: 200 });
  const start = ex({ endpoint: 6, method: 'POST', path: '/conversations', url: 'https://bot.example/conversations?idWebsite=1', requestBody: { idOperator: 'op-1', idConversation: 'ours' }, json: { idConversation: 'conv-7' }, status: 200 });
  const visitor = ex({ endpoint: 7, method: 'POST', path: '/conversations/conv-7/messages', url: 'https://bot.example/conversations/conv-7/messages?idWebsite=1', requestBody: { idOperator: 'op-1', message: { idMessage: 'm1' } }, status: 200 });
  const echo = ex({ endpoint: 7, method: 'POST', path: '/conversations/conv-7/messages', url: 'https://bot.example/conversations/conv-7/messages?idWebsite=1', requestBody: { idOperator: 'op-1', message: { idMessage: 'm2' } }, status: 200 });
  const first = ex({ endpoint: 5, path: '/bots/op-1/conversation-first-messages', url: 'https://bot.example/bots/op-1/conversation-first-messages?idWebsite=1' });
  const run: ConversationRun = { setup: { idOperator: 'op-1', idBot: 'demo', body: botWriteBody('demo', 'en'), scenarios: ex({ endpoint: 1 }), put }, idConversation: 'ours', connectorConversationId: 'conv-7',
    steps: [{ kind: 'first-messages', exchange: first }, { kind: 'start', exchange: start }, { kind: 'visitor', text: 'Hi', quickReply: false, exchange: visitor }, { kind: 'echo', of: 'text', exchange: echo }] };
  assert.deepEqual(withDependencies([{ ...echo }], run).map((e) => e.requestBody), [put, start, visitor, echo].map((e) => e.requestBody), 'the echo needs the bot, the opening and the visitor message before it');
  const own = ex({ endpoint: 3, path: '/bots/op-1', url: 'https://bot.example/bots/op-1?idWebsite=1' });
  assert.deepEqual(withDependencies([own], run), [put, own], 'a call naming the bot comes after its creation');
  assert.deepEqual(withDependencies([put, own], run), [put, own], 'each call once: the creation judged by a check is not repeated as its dependency');
  const text = exchangesCurl(withDependencies([echo], run).map((e) => ({ note: e.path, ex: e })));
  assert.match(text, /CONV1=\$\(printf '%s' "\$ANSWER" \| sed -n/, 'the connector\'s own id is taken from the answer');
  assert.match(text, /"https:\/\/bot\.example\/conversations\/\$\{CONV1\}\/messages\?idWebsite=1"/, 'and used by the later calls');
});

test('a comma-list option (--only) given once, repeated, or both: its items once each, in order (a repeated one threw a TypeError)', () => {
  assert.deepEqual(commaList('CONN-EP1-01, CONN-EP2-01'), ['CONN-EP1-01', 'CONN-EP2-01']);
  assert.deepEqual(commaList(['CONN-EP1-01', 'CONN-EP2-01,CONN-EP3-01', 'CONN-EP1-01']), ['CONN-EP1-01', 'CONN-EP2-01', 'CONN-EP3-01']);
  assert.deepEqual(commaList(undefined), []);
  assert.deepEqual(commaList(' , '), []);
});
