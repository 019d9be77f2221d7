// The live inspector in Chromium: conversations appear live, the connector exchange with timings and failures, polled availability, a retried webhook, no secrets.
import fs from 'node:fs';
import { agentFor } from '../../lib/http.js';
import { request } from '../../lib/undici.js';
import { test, expect, clauses, uniq, text, shot, realTime, noPageErrors, PROMPT_MS } from './helpers.js';
import { LIMITS } from '../../lib/limits.js';
import { targetSecrets } from '../../lib/target.js';


test('conversations appear live; the selected one shows each connector request, reply, timing and failures (timeout, 451 characters)',
  clauses('CONSOLE-INS-01').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, target, pageErrors }) => {
    const slow = uniq('slow connector');
    // Endpoint 7 answers after its 10 s limit: the service gives up (timeout) and shows no bot answer.
    await bot.script(slow, [text('Too late.')], { faults: { messages: { delayMs: LIMITS.messageTimeoutMs + 3_000 } } });
    const long = uniq('long text');
    await bot.script(long, [text('x'.repeat(LIMITS.botTextMax + 1)), text('After the long one.')]);

    await page.goto(target.inspector_url!);
    await expect(page.locator('body[data-ready="true"]')).toBeVisible();
    await expect(page.locator('#feed'), 'the live feed is connected').toHaveText('live', { timeout: PROMPT_MS });
    const id = await bot.start(long);
    const row = page.locator(`#conversations button[data-conversation-id="${id}"]`);
    await expect(row, 'a new conversation appears without reloading').toBeVisible({ timeout: PROMPT_MS });
    await expect(row.locator('.badge.started'), 'with its state').toBeVisible();
    await row.click();
    await expect(page.locator('#detail-failures li[data-kind="text-too-long"]'), 'the 451-character message is a failure').toContainText(`${LIMITS.botTextMax + 1} characters`, { timeout: PROMPT_MS });
    const exchanges = page.locator('#exchanges tbody tr');
    await expect(exchanges.filter({ hasText: 'first-messages' }), 'endpoint 5 in the exchange').toHaveCount(1, { timeout: PROMPT_MS });
    await expect(exchanges.filter({ hasText: 'conversation-create' }), 'endpoint 6 in the exchange').toHaveCount(1);
    const visitorCall = exchanges.filter({ hasText: 'messages (visitor message)' }).first();
    await expect(visitorCall, 'endpoint 7 for the visitor message').toBeVisible({ timeout: PROMPT_MS });
    await expect(visitorCall.locator('.badge'), 'its reply status').toHaveText('200');
    expect(Number(await visitorCall.locator('td.num').textContent()), 'its timing in ms').toBeGreaterThanOrEqual(0);
    await visitorCall.locator('summary').click();
    await expect(visitorCall.locator('pre').first(), 'the request body').toContainText(long);
    await expect(visitorCall.locator('pre').nth(1), 'the reply body with the long text').toContainText('x'.repeat(60));
    await expect(row.locator('.badge.failed'), 'the list counts the failure live').toBeVisible({ timeout: PROMPT_MS });
    await shot(page, 'inspector: 451-character failure');

    const slowId = await bot.start(slow);
    const slowRow = page.locator(`#conversations button[data-conversation-id="${slowId}"]`);
    await expect(slowRow).toBeVisible({ timeout: PROMPT_MS });
    await slowRow.click();
    const timedOut = page.locator('#exchanges tbody tr.failed').filter({ hasText: 'messages (visitor message)' });
    await expect(timedOut, 'endpoint 7 beyond 10 s is a timeout in the exchange').toContainText(`no answer within ${LIMITS.messageTimeoutMs} ms`, { timeout: LIMITS.messageTimeoutMs + PROMPT_MS });
    await expect(timedOut.locator('.badge'), 'with no reply status').toHaveText('none');
    const ms = Number(await timedOut.locator('td.num').textContent());
    expect(ms, `the timed-out call lasted ${ms} ms; expected about ${LIMITS.messageTimeoutMs} ms (tolerance -100 ms / +2000 ms)`).toBeGreaterThanOrEqual(LIMITS.messageTimeoutMs - 100);
    expect(ms).toBeLessThanOrEqual(LIMITS.messageTimeoutMs + 2_000);
    await expect(page.locator('#detail-failures li[data-kind="timeout"]'), 'and a timeout failure').toBeVisible();
    await expect(page.locator('#detail-transcript li[data-role="bot"]').filter({ hasText: 'Too late.' }), 'the late bot answer is not shown').toHaveCount(0);
    await shot(page, 'inspector: endpoint 7 timeout');
    noPageErrors(pageErrors);
  });

test('bot availability is shown per bot operator as polled (endpoint 4), live', clauses('CONSOLE-INS-02').needs('console', 'connector_url', 'sim'), async ({ bot, page, target, pageErrors }) => {
  const { conv } = await bot.seededBots('conv');
  await page.goto(target.inspector_url!);
  const row = page.locator(`#bots tbody tr[data-operator-id="${conv.operatorId}"]`);
  await expect(row.locator('.availability'), 'the seeded bot is shown available').toContainText('available', { timeout: PROMPT_MS });
  await expect(row, 'with its scenario').toContainText(conv.idBot);
  const polls = Number(await row.locator('td.polls').textContent());
  await expect.poll(async () => Number(await row.locator('td.polls').textContent()), { message: 'the poll count rises without reloading (about one poll per second)', timeout: PROMPT_MS }).toBeGreaterThan(polls);
  await expect(row.locator('ul li').first(), 'the last polls with status and timing').toContainText(/200 · \d+ ms/);
  await shot(page, 'inspector: bot availability');
  noPageErrors(pageErrors);
});

test('a retried webhook delivery shows its failed attempt and the retry', clauses('CONSOLE-INS-03').needs('platform', 'sink_url', 'console', 'connector_url', 'sim'), async ({ chat, bot, hooks, page, target, pageErrors }) => {
  await bot.seededBots('conv');
  const sub = await hooks.subscribe({ events: ['v2.conversation.pushed'] });
  await realTime(target.base_url, async () => {
    await hooks.plan(sub, [503], {}, 200);
    await chat.open();
    const id = await chat.start(uniq('webhook please'));
    const inspector = await page.context().newPage();
    await inspector.goto(target.inspector_url!);
    const row = inspector.locator('#webhooks tbody tr').filter({ hasText: id });
    await expect(row.locator('.attempts li').first(), 'the first attempt is answered 503').toContainText('503', { timeout: PROMPT_MS });
    await expect(row.locator('.attempts li'), 'the retry follows (10 s later) and is answered 200').toHaveCount(2, { timeout: LIMITS.webhookRetryDelaysMs[0]! + PROMPT_MS });
    await expect(row.locator('.attempts li').nth(1)).toContainText('200');
    await expect(row, 'the delivery ends delivered').toHaveAttribute('data-state', 'delivered', { timeout: PROMPT_MS });
    await expect(row, 'the callback URL is shown').toContainText(sub.path);
    await shot(inspector, 'inspector: retried webhook');
  });
  noPageErrors(pageErrors);
});

test('no secret in the pages: HTML, scripts, JSON views and live-feed payloads', clauses('CONSOLE-SEC-01').needs('platform', 'sink_url', 'console', 'connector_url', 'sim'), async ({ chat, bot, hooks, page, target, pageErrors }) => {
  const sub = await hooks.subscribe({ events: ['v2.conversation.pushed'] });
  await chat.open();
  const id = await chat.start('rich content');
  await expect(chat.payload('bundle/product-offer')).toBeVisible({ timeout: PROMPT_MS });
  const secrets = [...targetSecrets(target), sub.secret];
  const file = (target as { secrets_file?: string }).secrets_file;
  if (file && fs.existsSync(file)) {
    const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    secrets.push(...Object.values(s));
  }
  const base = new URL(target.chat_url!).origin;
  const get = async (path: string) => (await request(base + path, { dispatcher: agentFor(target.ca_file) })).body.text();
  const bodies: Record<string, string> = {};
  for (const p of ['/console/chat', '/console/inspector', '/console/assets/chat.js', '/console/assets/inspector.js', '/console/assets/common.js', '/console/assets/markdown.js', '/console/assets/style.css',
    '/console/api/config', '/console/api/conversations', `/console/api/conversations/${id}`, '/console/api/bots', '/console/api/webhooks']) bodies[p] = await get(p);
  await expect.poll(async () => (await get('/console/api/webhooks')).includes(id), { message: 'the webhook view lists the delivery of this conversation', timeout: PROMPT_MS }).toBe(true);
  // The live feed, read in the page itself until the bot and webhook events came.
  await page.goto(target.inspector_url!);
  await page.evaluate(() => {
    const w = window as unknown as { __feed: string[] };
    w.__feed = [];
    const es = new EventSource('/console/api/events');
    for (const name of ['hello', 'conversation', 'exchange', 'bots', 'webhooks']) es.addEventListener(name, (e) => { w.__feed.push(`${name} ${(e as MessageEvent).data}`); });
  });
  await expect.poll(() => page.evaluate(() => (window as unknown as { __feed: string[] }).__feed.map((l) => l.split(' ')[0])),
    { message: 'the live feed sends its hello and the polled-availability event', timeout: PROMPT_MS }).toEqual(expect.arrayContaining(['hello', 'bots']));
  bodies['SSE /console/api/events'] = await page.evaluate(() => (window as unknown as { __feed: string[] }).__feed.join('\n'));
  bodies['inspector DOM'] = await page.content();
  expect(Object.values(bodies).every((b) => b.length > 0), 'every page, asset, view and the feed answered').toBe(true);
  for (const [where, body] of Object.entries(bodies)) {
    const found = secrets.filter((s) => s && s.length >= 4 && body.includes(s));
    expect(found.length, `${where} contains ${found.length} secret(s)`).toBe(0);
  }
  await test.info().attach('checked pages and views', { body: Object.keys(bodies).join('\n'), contentType: 'text/plain' });
  noPageErrors(pageErrors);
});
