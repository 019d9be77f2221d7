// Unit tests of transcripts: match patterns on RE2, the written format and its schema, normalisation, comparison and its classes, masking, the fake connector's v2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compilePattern, PatternError } from '../transcripts/pattern.js';
import { formatTranscript, parseTranscript, TranscriptError, parseDuration, formatDuration, type Transcript } from '../transcripts/format.js';
import { normaliseReply, normaliseVariables, failureText } from '../transcripts/normalise.js';
import { compareTranscripts, slowerThreshold } from '../transcripts/compare.js';
import { LABEL } from '../lib/verdicts.js';
import { matches } from '../transcripts/expect.js';
import { maskPersonal, junitXml, replayPage, terminalDiff } from '../transcripts/report.js';
import { buildTranscript, marksOf, withoutCredentials, type ServiceView } from '../transcripts/from-service.js';
import { asVersion, V2_CHANGES } from '../fake-connector/versions.js';
import { parseRecordScript } from '../transcripts/run.js';
import { transcriptFromCheck } from '../transcripts/from-check.js';

const base = (turns: Transcript['turns'], by = 'ces record'): Transcript => ({
  format: 'ces-transcript/1', name: 'unit', recorded: { at: '2026-01-01T00:00:00.000Z', by, tool: 'ces 0.1.0' },
  connector: { url: 'https://bot.example' }, bot: { idBot: 'demo' }, website: { id: '1' }, turns,
});
const text = (value: unknown, quickReplies?: unknown[]) => ({ type: 'message', payload: { contentType: 'text', value }, ...(quickReplies ? { quickReplies } : {}) });

// ---- match patterns (RE2) -------------------------------------------------------------------------------------------
test('patterns answer as RegExp does on generated patterns and texts', () => {
  const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', 'x?');
  const piece = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}', '{2}')).map(([a, q]) => (a.endsWith('?') && q ? `(${a})${q}` : `${a}${q}`));
  const seq = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
  const pattern = fc.tuple(fc.array(seq, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean()).map(([alts, bol, eol]) => `${bol ? '^' : ''}(${alts.join('|')})${eol ? '$' : ''}`);
  fc.assert(fc.property(pattern, fc.string({ unit: fc.constantFrom('a', 'b', '1', 'x', '\n'), maxLength: 12 }), (p, s) => {
    assert.equal(compilePattern(p).test(s), new RegExp(p).test(s), `pattern ${p} on ${JSON.stringify(s)}`);
  }), { numRuns: 500 });
});

test('patterns that backtrack catastrophically in RegExp run in linear time here', () => {
  // (a|a)*b and (a+)+b take exponential time on V8 against these texts; RE2 makes each one pass.
  assert.equal(compilePattern('(a|a)*b').test('a'.repeat(20_000)), false);
  assert.equal(compilePattern('(a+)+b').test('a'.repeat(20_000)), false);
  assert.equal(compilePattern('^(\\w+\\s?)*$').test(`${'word '.repeat(2_000)}!`), false);
});

test('flags and the refused features are explicit', () => {
  assert.equal(compilePattern('hello', 'i').test('HeLLo'), true);
  assert.equal(compilePattern('a.b', 's').test('a\nb'), true);
  assert.equal(compilePattern('a.b').test('a\nb'), false);
  for (const p of ['(a)\\1', '(?=a)', '(?<!a)b', '(a', '*']) {
    assert.throws(() => compilePattern(p), (e: Error) => e instanceof PatternError && /RE2/.test(e.message), p);
  }
  assert.throws(() => compilePattern('a', 'g'), /flag "g" is not supported/);
  assert.throws(() => compilePattern('a'.repeat(501)), /longer than 500/);
});

// ---- format ---------------------------------------------------------------------------------------------------------
test('the written form has a stable key order and one turn (one reply) per line, and reads back the same', () => {
  const t = base([{ firstMessages: [text('Hi')], ms: 3 }, { bot: [text('Yes', ['a', 'b']), { type: 'close' }], ms: 5, visitor: 'hello' } as never, { wait: '5m', events: ['closed after inactivity'] }]);
  const written = formatTranscript(t);
  assert.match(written, /\n {4}\{"visitor": "hello", "ms": 5, "bot": \[\n {6}\{"type": "message", "payload": \{"contentType": "text", "value": "Yes"\}, "quickReplies": \["a", "b"\]\},\n {6}\{"type": "close"\}\n {4}\]\},/);
  assert.match(written, /\n {4}\{"wait": "5m", "events": \["closed after inactivity"\]\}\n/);
  assert.equal(formatTranscript(parseTranscript(written)), written);
});

test('the reader says where a transcript is wrong', () => {
  const good = base([{ visitor: 'hi', bot: [] }]);
  assert.throws(() => parseTranscript('{', 'f.json'), (e: Error) => e instanceof TranscriptError && /f\.json: not JSON/.test(e.message));
  assert.throws(() => parseTranscript(JSON.stringify({ ...good, format: 'other' })), /format/);
  assert.throws(() => parseTranscript(JSON.stringify(base([{ visitor: 'hi', bot: [text({ match: 'a\\1' })] }]))), /turns\[0\]\.bot\[0\]\.payload\.value\.match: .*no backreferences/);
  assert.throws(() => parseTranscript(JSON.stringify(base([{ visitor: 'hi', bot: [] }, { wait: 'soon' }]))), /wait/);
  assert.doesNotThrow(() => parseTranscript(JSON.stringify(base([{ visitor: 'hi', bot: { any: true } }]))));
});

test('durations of waits', () => {
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('300ms'), 300);
  assert.equal(parseDuration('5 minutes'), undefined);
  assert.equal(formatDuration(300_000), '5m');
  assert.equal(formatDuration(1_500), '1500ms');
});

test('recording scripts: texts, quick-reply clicks, waits', () => {
  assert.deepEqual(parseRecordScript('["Hello", "@quick-reply", "@quick-reply No thanks", "@wait 5m"]'), [{ visitor: 'Hello' }, { clickFirst: true }, { visitor: 'No thanks', quickReply: true }, { wait: 300_000 }]);
  assert.throws(() => parseRecordScript('["@wait 5m"]'), /first step must be a visitor text/);
  assert.throws(() => parseRecordScript('["Hi", "@wait later"]'), /step 2/);
});

// ---- normalisation --------------------------------------------------------------------------------------------------
test('per-run values are normalised: quick replies by value, rules by label, the connector address, dates and ids', () => {
  const ctx = { connectorUrl: 'https://127.0.0.1:4444', rules: [{ id: '7d1f0000-0000-4000-8000-000000000001', label: 'Night shift' }] };
  assert.deepEqual(normaliseReply({ type: 'message', payload: { contentType: 'card/content', title: 'T', image: { url: 'https://127.0.0.1:4444/images/card.png', description: 'd' }, createdAt: 'x' }, quickReplies: [{ contentType: 'text/quick-reply', value: 'Yes', idQuickReply: 'c0ffee00-0000-4000-8000-000000000000' }] }, ctx),
    { type: 'message', payload: { contentType: 'card/content', title: 'T', image: { url: '{{connector_url}}/images/card.png', description: 'd' } }, quickReplies: ['Yes'] });
  assert.deepEqual(normaliseReply({ type: 'transfer', distributionRule: '7d1f0000-0000-4000-8000-000000000001' }, ctx), { type: 'transfer', distributionRule: '@rule:Night shift' });
  assert.deepEqual(normaliseVariables([{ key: 'email', value: 'a@b.example' }]), { email: 'a@b.example' });
  assert.equal(failureText('no answer within 10000 ms'), 'no answer within the time limit');
  assert.equal(failureText('HTTP 503'), 'HTTP 503');
});

test('a transcript never keeps credentials of the connector URL', () => {
  assert.equal(withoutCredentials('https://user:pass@bot.example:9443/hook?key=s3cret'), 'https://bot.example:9443/hook?key=***');
  assert.equal(withoutCredentials('https://127.0.0.1:4444'), 'https://127.0.0.1:4444');
});

test('a rule recorded by the check (label "Night shift") is the service\'s "Night shift (asynchronous, nobody online)"', () => {
  assert.equal(matches('@rule:Night shift', '@rule:Night shift (asynchronous, nobody online)'), true);
  assert.equal(matches('@rule:Support', '@rule:Sales (no queue)'), false);
});

// ---- comparison -----------------------------------------------------------------------------------------------------
const kinds = (rec: Transcript, now: Transcript) => compareTranscripts(rec, now).differences.map((d) => `${LABEL[d.verdict]} ${d.kind}`);

test('differences are classified', () => {
  const rec = base([{ firstMessages: [text('Hi')], ms: 10 }, { visitor: 'a', ms: 10, bot: [text('one', ['x', 'y']), { type: 'transfer', distributionRule: '@rule:Support' }], variables: { plan: 'gold' }, events: ['transfer requested'] }]);
  const same = structuredClone(rec);
  assert.deepEqual(kinds(rec, same), []);
  const now = structuredClone(rec) as any;
  now.turns[1].bot[0].payload.value = 'two';
  now.turns[1].bot[0].quickReplies = ['x', 'z'];
  now.turns[1].bot[1] = { type: 'close' };
  now.turns[1].variables = { plan: 'silver' };
  now.turns[1].events = ['closed by the bot'];
  assert.deepEqual(kinds(rec, now), ['FAIL text changed', 'FAIL quick replies changed', 'FAIL close/transfer changed', 'FAIL close/transfer changed', 'FAIL variables changed', 'FAIL close/transfer changed']);
  const missing = structuredClone(rec) as any;
  missing.turns[1].bot = [missing.turns[1].bot[1], text('extra')];
  assert.deepEqual(kinds(rec, missing), ['FAIL reply missing', 'FAIL reply extra']);
});

test('timing: slower than max(500 ms, 50 %) is a WARN, past the spec limit a FAIL, no answer a FAIL', () => {
  assert.equal(slowerThreshold(100), 600);
  assert.equal(slowerThreshold(2_000), 3_000);
  const rec = base([{ firstMessages: [], ms: 100 }, { visitor: 'a', ms: 100, bot: [] }]);
  const at = (first: number, ms: number) => base([{ firstMessages: [], ms: first }, { visitor: 'a', ms, bot: [] }]);
  assert.deepEqual(kinds(rec, at(100, 600)), []);
  assert.deepEqual(kinds(rec, at(100, 601)), ['WARN slower']);
  assert.deepEqual(kinds(rec, at(2_001, 100)), ['FAIL past the spec limit']);
  assert.deepEqual(kinds(rec, at(100, 10_001)), ['FAIL past the spec limit']);
  const failed = base([{ firstMessages: [], ms: 100 }, { visitor: 'a', ms: 10_000, bot: [], failure: 'no answer within the time limit' }]);
  assert.deepEqual(kinds(rec, failed), ['FAIL past the spec limit']);
  const closedEarly = base([{ firstMessages: [], ms: 100 }]);
  assert.deepEqual(kinds(rec, closedEarly), ['FAIL not played']);
});

test('hand-written expectations: match, any, oneOf (per value, per reply, per answer)', () => {
  const now = base([{ visitor: 'a', bot: [text('Order 42 shipped', ['Yes', 'No'])] }]);
  const rec = (bot: unknown) => base([{ visitor: 'a', bot: bot as never }]);
  assert.deepEqual(kinds(rec([text({ match: '^Order \\d+ (shipped|delivered)$' }, ['Yes', 'No'])]), now), []);
  assert.deepEqual(kinds(rec([text({ match: '^Order \\d+ delivered$' }, ['Yes', 'No'])]), now), ['FAIL text changed']);
  assert.deepEqual(kinds(rec([text({ any: true }, { any: true } as never)]), now), []);
  assert.deepEqual(kinds(rec([text({ oneOf: ['Order 42 shipped', 'Order 42 delivered'] }, ['Yes', { oneOf: ['No', 'Not now'] }])]), now), []);
  assert.deepEqual(kinds(rec({ any: true }), now), []);
  assert.deepEqual(kinds(rec({ oneOf: [[text('Hello')], [text('Order 42 shipped', ['Yes', 'No'])]] }), now), []);
  assert.deepEqual(kinds(rec({ oneOf: [[text('Hello')], [text('Bye')]] }), now), ['FAIL text changed', 'FAIL quick replies changed']);
});

test('events are not judged on transcripts recorded by the check (no service there)', () => {
  const rec = base([{ visitor: 'a', bot: [] }], 'ces check connector');
  assert.deepEqual(kinds(rec, base([{ visitor: 'a', bot: [], events: ['transfer requested'] }])), []);
});

// ---- reports --------------------------------------------------------------------------------------------------------
test('e-mail addresses and phone numbers are masked in every report', () => {
  assert.equal(maskPersonal('visitor@example.com, +33 6 12 34 56 78'), '[e-mail masked], [phone masked]');
  const rec = base([{ visitor: 'a', bot: [], variables: { email: 'visitor@example.com' } }]);
  const now = base([{ visitor: 'a', bot: [], variables: { email: 'other.person@example.org', phone: '+1 (555) 010-9999' } }]);
  const comparison = compareTranscripts(rec, now);
  const result = { file: 't.json', recorded: rec, now, comparison, ms: 5 };
  for (const out of [terminalDiff(result), junitXml([result]), replayPage([result], { against: 'x', date: 'd' })]) {
    assert.ok(!/example\.(com|org)|555/.test(out), out);
    assert.match(out, /e-mail masked/);
  }
  assert.match(junitXml([result]), /<testcase name="transcript t\.json" classname="t\.json"[^>]*>.*<failure type="FAIL" message="FAIL {2}t\.json/, 'one test case per transcript, failed with its diff');
});

// ---- service view → transcript (chat page) --------------------------------------------------------------------------
test('a conversation held on the chat page becomes turns: quick-reply clicks by value, events, an inactivity close as a wait', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const view: ServiceView = {
    conversationId: 'c', state: 'closed', botOperatorId: 3,
    transcript: [
      { role: 'bot', payload: { contentType: 'text', value: 'Hi' }, at: at(0) },
      { role: 'visitor', payload: { contentType: 'text', value: 'help' }, at: at(1) },
      { role: 'bot', payload: { contentType: 'text', value: 'Order?' }, quickReplies: [{ value: 'Yes' }], at: at(2) },
      { role: 'visitor', payload: { contentType: 'text', value: 'Yes' }, at: at(3) },
      { role: 'system', payload: { contentType: 'event', value: 'INACTIVITY_CLOSE' }, at: at(9) },
    ],
    failures: [{ endpoint: 'messages', kind: 'text-too-long', reason: 'x', at: at(4) }],
  };
  const body = (replies: unknown[]) => JSON.stringify({ replies });
  const exchanges = [
    { endpoint: 'first-messages', requestBody: null, responseBody: body([text('Hi')]), status: 200, ms: 3, failure: null },
    { endpoint: 'conversation-create', requestBody: '{}', responseBody: JSON.stringify({ replies: [], variables: [{ key: 'k', value: 'v' }] }), status: 200, ms: 2, failure: null },
    { endpoint: 'messages', requestBody: JSON.stringify({ message: { author: { role: 'visitor' } } }), responseBody: body([text('Order?', ['Yes'])]), status: 200, ms: 4, failure: null },
    { endpoint: 'messages', requestBody: JSON.stringify({ message: { author: { role: 'operator' } } }), responseBody: body([]), status: 200, ms: 1, failure: null },
    { endpoint: 'messages', requestBody: JSON.stringify({ message: { author: { role: 'visitor' } } }), responseBody: null, status: null, ms: 10_000, failure: 'no answer within 10000 ms' },
  ];
  assert.deepEqual(marksOf(view).map((m) => m.kind === 'visitor' ? `${m.text}${m.quickReply ? ' (click)' : ''}` : 'wait'), ['help', 'Yes (click)', 'wait']);
  const { transcript } = buildTranscript(view, exchanges, { name: 'chat', by: 'chat page', connectorUrl: 'https://bot.example', rules: [], idBot: 'demo', websiteId: '1' });
  assert.deepEqual(transcript.turns, [
    { firstMessages: [text('Hi')], ms: 3 },
    { visitor: 'help', ms: 4, bot: [text('Order?', ['Yes'])], variables: { k: 'v' } },
    { visitor: 'Yes', quickReply: true, ms: 10_000, bot: [], failure: 'no answer within the time limit', events: ['message not shown: over 450 characters'] },
    { wait: '5m', events: ['closed after inactivity'] },
  ]);
});

// ---- the fake connector's v2 ----------------------------------------------------------------------------------------
test('the fake connector\'s v2 changes one answer, one quick reply and one timing, nothing else', () => {
  const r = [text(V2_CHANGES.answer.from)];
  assert.deepEqual(asVersion('v1', V2_CHANGES.answer.text, r as never), { replies: r, delayMs: 0 });
  assert.equal((asVersion('v2', V2_CHANGES.answer.text, r as never).replies[0] as any).payload.value, V2_CHANGES.answer.to);
  const q = [{ type: 'message', payload: { contentType: 'text', value: 'Q' }, quickReplies: [{ value: 'Yes please' }, { value: V2_CHANGES.quickReply.from }] }];
  assert.deepEqual((asVersion('v2', V2_CHANGES.quickReply.text, q as never).replies[0] as any).quickReplies.map((x: any) => x.value), ['Yes please', V2_CHANGES.quickReply.to]);
  assert.equal(asVersion('v2', V2_CHANGES.timing.text, []).delayMs, V2_CHANGES.timing.delayMs);
  assert.deepEqual(asVersion('v2', 'something else', r as never), { replies: r, delayMs: 0 });
});

// ---- the connector check's conversation ----------------------------------------------------------------------------
test('the connector check\'s conversation becomes a transcript: first messages, visitor turns with ms, failures, rules by label', () => {
  const ex = (json: unknown, ms = 7, extra: object = {}) => ({ endpoint: 7, method: 'POST', path: '/p', url: 'https://bot.example/p', signed: '', status: 200, json, ms, ...extra });
  const rule = { id: 'aaaaaaaa-0000-4000-8000-000000000001', label: 'Support' };
  const run = {
    setup: { idOperator: 'ces-check-1', idBot: 'demo', body: { name: 'n', pseudo: 'p', language: 'en', distributionRules: [rule], external: { idBot: 'demo' } }, scenarios: ex([]), put: ex({}) },
    idConversation: 'c', connectorConversationId: 'c',
    steps: [
      { kind: 'first-messages', exchange: ex({ replies: [text('Hi')] }, 4) },
      { kind: 'start', exchange: ex({ replies: [], variables: [{ key: 'k', value: 'v' }] }) },
      { kind: 'visitor', text: 'Hello', quickReply: false, exchange: ex({ replies: [text('Pick', [{ value: 'A', idQuickReply: 'x' }]), { type: 'transfer', distributionRule: rule.id }] }, 9) },
      { kind: 'echo', of: 'text', exchange: ex({ replies: [] }) },
      { kind: 'visitor', text: 'A', quickReply: true, exchange: ex(undefined, 11_100, { status: undefined, error: 'Headers Timeout Error' }) },
      { kind: 'note', text: 'n' },
    ],
  };
  const t = transcriptFromCheck(run as never, { url: 'https://bot.example', website: '1', language: 'en' });
  assert.equal(t.recorded.by, 'ces check connector');
  assert.deepEqual(t.turns, [
    { firstMessages: [text('Hi')], ms: 4 },
    { visitor: 'Hello', ms: 9, bot: [text('Pick', ['A']), { type: 'transfer', distributionRule: '@rule:Support' }], variables: { k: 'v' } },
    { visitor: 'A', quickReply: true, ms: 11_100, bot: [], failure: 'no answer within the time limit' },
  ]);
  assert.doesNotThrow(() => parseTranscript(formatTranscript(t)));
});
