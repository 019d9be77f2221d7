// Services per stack (issue 15 item 2): two stacks in one process, with different deviations, share no state (deviations, poller, exchange log, runtime, clock, dispatcher).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { agentFor, http } from '../lib/http.js';

test('two stacks in one process with different deviations do not see each other', async () => {
  const stacks: Stack[] = [];
  try {
    stacks.push(await startStack({ deviate: ['rest-default-page-size-10'] }));
    stacks.push(await startStack({ deviate: ['bots-poll-2s'] }));
    const [a, b] = stacks as [Stack, Stack];
    const call = (s: Stack, path: string, init: { method?: string; body?: unknown } = {}) => http({
      method: init.method ?? 'GET', url: `${s.ready.sim_url}${path}`,
      headers: { authorization: `Bearer ${s.ready.sim_token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    }, agentFor(s.ready.ca_file));

    // Deviations: each stack sees its own, through its own simulation API.
    assert.deepEqual((await call(a, '/deviations')).json.ids, ['rest-default-page-size-10']);
    assert.deepEqual((await call(b, '/deviations')).json.ids, ['bots-poll-2s']);
    const page = async (s: Stack) => (await http({ url: `${s.ready.rest_base_url}/operator`, headers: { 'x-api-key': s.ready.api_key } }, agentFor(s.ready.ca_file))).json.pagination.limit;
    assert.equal(await page(a), 10, 'stack A runs its deviation');
    assert.equal(await page(b), 20, 'stack B does not run stack A\'s deviation');

    // The tokens differ: one stack's token opens nothing on the other.
    assert.notEqual(a.ready.sim_token, b.ready.sim_token);
    const cross = await http({ url: `${b.ready.sim_url}/clock`, headers: { authorization: `Bearer ${a.ready.sim_token}` } }, agentFor(b.ready.ca_file));
    assert.equal(cross.status, 401);

    // Every stateful service is its own object.
    for (const k of ['connector', 'exchanges', 'poller', 'runtime'] as const) assert.notEqual(a.app.ces.bots[k], b.app.ces.bots[k], k);
    assert.notEqual(a.app.ces.clock, b.app.ces.clock);
    assert.notEqual(a.app.ces.deviations, b.app.ces.deviations);

    // A clock advance on A moves A's clock only.
    const before = b.app.ces.clock.offset;
    assert.equal((await call(a, '/clock/advance', { method: 'POST', body: { ms: 3_600_000 } })).status, 200);
    assert.ok(a.app.ces.clock.offset >= 3_600_000);
    assert.equal(b.app.ces.clock.offset, before, 'A\'s clock advance moved B\'s clock');

    // A conversation on A: A's runtime and exchange log hold it, B's do not.
    const started = await call(a, '/conversations', { method: 'POST', body: { channel: 'chat', text: 'hello from stack A' } });
    assert.equal(started.status, 201, started.text);
    const uuid = started.json.conversationId as string;
    assert.ok(a.app.ces.bots.runtime.convByUuid(uuid));
    assert.equal(b.app.ces.bots.runtime.convByUuid(uuid), undefined);
    assert.equal((await call(b, `/conversations/${uuid}`)).status, 404);
    // Exchanges seen live by A's feed never reach B's feed.
    const seenByB: Array<number | null> = [];
    b.app.ces.bots.exchanges.events.on('exchange', (e: { conversationId: number | null }) => { seenByB.push(e.conversationId); });
    const deadline = Date.now() + 10_000;
    const id = a.app.ces.bots.runtime.convByUuid(uuid)!.id;
    while (a.app.ces.bots.exchanges.ofConversation(id).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(a.app.ces.bots.exchanges.ofConversation(id).length > 0, 'stack A called its connector for the conversation');
    assert.ok(b.app.ces.bots.exchanges.recent().every((e) => e.conversationId === null), 'a conversation exchange of A reached B\'s log');
    assert.deepEqual(seenByB.filter((c) => c !== null), [], 'B\'s live feed carried a conversation exchange (B has no conversation)');

    // Each poller describes its own bots from its own polls.
    const bot = (a.app.ces.db.prepare('SELECT operator_id FROM bot_operators ORDER BY operator_id LIMIT 1').get() as { operator_id: number }).operator_id;
    assert.notEqual(a.app.ces.bots.poller.describe(bot), b.app.ces.bots.poller.describe(bot));
  } finally {
    for (const s of stacks) await s.close();
  }
});
