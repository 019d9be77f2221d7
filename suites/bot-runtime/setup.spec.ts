// The bot creation flow as the fake connector saw it (endpoints 1-3), bot operators, and the platform API that registers connectors and bots (G17).
import { test, expect, needs } from './helpers.js';
import { clauses, expectSchema } from '../fixtures.js';
import { addSecret } from '../../lib/mask.js';

test('bot creation flow: GET /external-bots, PUT /bots/{idOperator} with the write body, GET /bots/{idOperator}; one scenario and one language per bot',
  clauses('BOT-SETUP-01', 'BOT-SETUP-02', 'BOT-SETUP-03', 'BOT-SETUP-04'), async ({ bot }) => {
    needs('sim');
    const { conv, lab } = await bot.seededBots();
    const { requests } = await bot.requests();
    for (const b of [conv, lab]) {
      const put = requests.find((r) => r.endpoint === 'bot-put' && r.idOperator === String(b.operatorId));
      expect(put, `PUT /bots/${b.operatorId} seen by the connector`).toBeTruthy();
      const list = requests.filter((r) => r.endpoint === 'external-bots' && r.seq < put!.seq);
      expect(list.length, 'GET /external-bots before the PUT').toBeGreaterThan(0);
      expectSchema('connector/scenarios.json', list.at(-1)!.answer?.body);
      const get = requests.find((r) => r.endpoint === 'bot-get' && r.idOperator === String(b.operatorId) && r.seq > put!.seq);
      expect(get, `GET /bots/${b.operatorId} after the PUT`).toBeTruthy();
      expectSchema('connector/bot-write.json', put!.body);
      expect(put!.body.language, 'the write body carries the bot operator\'s one language').toBe(b.languages[0]);
      expect(b.languages, 'a bot operator has exactly one language').toHaveLength(1);
      expect(put!.body.distributionRules.map((r: any) => r.id).sort()).toEqual(b.distributionRules.map((r) => r.id).sort());
      expect(put!.body.external.idBot).toBe(b.idBot);
      expectSchema('connector/bot.json', get!.answer?.body);
    }
    expect(conv.idBot, 'two bot operators never share a scenario').not.toBe(lab.idBot);
  });

test('platform API: HTTPS connector apps, installation with idConnectorVersion, rules, and a bot created through the connector', clauses('BOT-SETUP-05'), async ({ bot, api, target }) => {
  needs('sim', 'platform');
  const { conv } = await bot.seededBots();
  const base = target.platform_url ?? `${target.base_url}/platform`;
  const h = { 'x-api-key': target.api_key };
  // Connector secrets of this check never reach the report.
  for (const s of ['secret-123456', 'another-secret-42']) addSecret(s);
  const denied = await api.postJson(`${base}/connector-apps`, { name: 'x', baseUrl: target.connector_url, secret: 'secret-123456' });
  expect(denied.status, 'no API key: refused').toBe(403);
  const plain = await api.postJson(`${base}/connector-apps`, { name: 'plain', pluginKind: 'bot', baseUrl: 'http://127.0.0.1:9/', secret: 'secret-123456' }, h);
  expect(plain.status, 'a plain-http base URL is refused').toBe(400);
  const app = await api.postJson(`${base}/connector-apps`, { name: 'Checked connector', pluginKind: 'bot', baseUrl: target.connector_url, secret: 'another-secret-42' }, h);
  expect(app.status, app.text).toBe(201);
  const inst = await api.postJson(`${base}/connector-apps/${app.json.id}/installations`, { websiteId: conv.websiteId }, h);
  expect(inst.status, inst.text).toBe(201);
  expect(inst.json.idConnectorVersion).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  const rule = await api.postJson(`${base}/distribution-rules`, { label: 'Checked queue', queueSlots: 2, operatorIds: conv.distributionRules[0]!.operatorIds }, h);
  expect(rule.status, rule.text).toBe(201);
  expect(rule.json.asynchronous, 'queue slots > 0: asynchronous').toBe(true);
  // The new app signs with another secret than the fake connector knows: the flow fails and says so (the connector refuses unsigned calls).
  const created = await api.postJson(`${base}/bots`, { installationId: inst.json.id, name: 'Checked bot', pseudo: 'Checker', language: 'en', distributionRuleIds: [rule.json.id] }, h);
  expect(created.status, 'a connector that refuses the calls fails the creation flow').toBe(502);
  const seededInstall = (await api.request({ url: `${base}/installations`, headers: h })).json.data.find((i: any) => i.websiteId === conv.websiteId && i.id !== inst.json.id);
  const ok = await api.postJson(`${base}/bots`, { installationId: seededInstall.id, name: 'Checked bot', pseudo: 'Checker', language: 'en', distributionRuleIds: [rule.json.id], idBot: 'spare' }, h);
  expect(ok.status, ok.text).toBe(201);
  const put = await bot.waitRequest({ endpoint: 'bot-put', idOperator: ok.json.idOperator }, 3_000);
  expect(put?.body.language, 'the connector received the bot write body').toBe('en');
  const multi = await api.postJson(`${base}/bots`, { installationId: seededInstall.id, name: 'Two languages', pseudo: 'Bi', language: 'en,fr' }, h);
  expect(multi.status, 'a bot operator has exactly one language').toBe(400);
});
