// The bot creation flow as the fake connector saw it (endpoints 1-3), bot operators, and the platform API that registers connectors and bots (G17).
import { test, expect, expectSchema, clauses, quoteCall, type ConnectorRequest, type SimBot } from './helpers.js';
import { addSecret } from '../../lib/mask.js';
import { keyOfClient } from '../fixtures/target.js';
import { note, notJudgedIf, step, under } from '../verdicts.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The query and signature of the calls of a creation flow, as the connector received them (BOT-QUERY-01, BOT-SIG-01). */
function judgeQueryAndSignature(calls: ConnectorRequest[], websiteId: number) {
  under('BOT-QUERY-01', () => {
    const bad = calls.filter((r) => !UUID.test(r.query.idConnectorVersion ?? '') || r.query.idWebsite !== String(websiteId));
    expect(bad.map(quoteCall), `every call of the creation flow carries idConnectorVersion (UUID) and idWebsite ${websiteId} (the installation's project)`).toEqual([]);
  });
  under('BOT-SIG-01', () => {
    const bad = calls.filter((r) => !r.signature.ok);
    expect(bad.map((r) => `${r.signature.reason}: ${quoteCall(r)}`), 'every call of the creation flow carries a valid X-Service-Signature').toEqual([]);
  });
}

// The checks of this file create bot operators on the seeded installation, which offers few scenarios: they run one after the
// other (in order, each judged on its own), so none takes the scenario another one is about to name.
test.describe.configure({ mode: 'default' });

/** Endpoints 1, 2, 3 in that order for bot `b` among `requests`, with valid bodies and answers. */
function expectFlow(requests: ConnectorRequest[], b: SimBot, when: string) {
  const put = requests.find((r) => r.endpoint === 'bot-put' && r.idOperator === String(b.operatorId));
  under('BOT-SETUP-01', () => expect(put, `${when}: PUT /bots/${b.operatorId} seen by the connector`).toBeTruthy());
  const list = requests.filter((r) => r.endpoint === 'external-bots' && r.seq < put!.seq);
  under('BOT-SETUP-01', () => expect(list.length, `${when}: GET /external-bots before the PUT`).toBeGreaterThan(0));
  under('BOT-SETUP-01', () => expectSchema('connector/scenarios.json', list.at(-1)!.answer?.body));
  const get = requests.find((r) => r.endpoint === 'bot-get' && r.idOperator === String(b.operatorId) && r.seq > put!.seq);
  under('BOT-SETUP-01', () => expect(get, `${when}: GET /bots/${b.operatorId} after the PUT`).toBeTruthy());
  under('BOT-SETUP-02', () => expectSchema('connector/bot-write.json', put!.body));
  under('BOT-SETUP-02', () => expect(put!.body.language, `${when}: the write body carries the bot operator's one language`).toBe(b.languages[0]));
  under('BOT-SETUP-02', () => expect(put!.body.distributionRules.map((r: { id: string }) => r.id).sort()).toEqual(b.distributionRules.map((r) => r.id).sort()));
  under('BOT-SETUP-02', () => expect(put!.body.external.idBot).toBe(b.idBot));
  under('BOT-SETUP-01', () => expectSchema('connector/bot.json', get!.answer?.body));
}

test('bot creation flow: GET /external-bots, PUT /bots/{idOperator} with the write body, GET /bots/{idOperator}; one scenario and one language per bot',
  clauses('BOT-SETUP-01', 'BOT-SETUP-02', 'BOT-SETUP-03', 'BOT-SETUP-04').needs('sim', 'connector_url'), async ({ bot, api, target }) => {
    const { conv, lab } = await bot.seededBots('none');
    const { requests } = await bot.requests();
    for (const b of [conv, lab]) {
      expectFlow(requests, b, 'at start');
      under('BOT-SETUP-04', () => expect(b.languages, 'a bot operator has exactly one language').toHaveLength(1));
    }
    under('BOT-SETUP-03', () => expect(conv.idBot, 'two bot operators never share a scenario').not.toBe(lab.idBot));
    // "A bot is a regular agent (operator) of type bot ... tied to exactly one language": the bot operator is an operator of
    // the service, read like any other with the REST API key of its client, with that one language. (No field of the spec
    // names an operator's type: being an operator is what can be observed.)
    await under('BOT-SETUP-04', async () => {
      for (const b of [conv, lab]) {
        // The key of the bot's client; a target that names one key of an unknown client (client_id 0) gives that one.
        const key = keyOfClient(target, b.clientId) ?? (target.api_keys.every((k) => k.client_id === 0) ? target.api_key : undefined);
        if (!key) { note(`BOT-SETUP-04: the target names no REST API key of client ${b.clientId}: bot operator ${b.operatorId} was not read as an operator`); continue; }
        const got = await api.rest({ path: `/operator/${b.operatorId}`, key });
        expect(got.status, `the bot operator ${b.operatorId} is an operator: GET /operator/${b.operatorId} → ${got.status} ${got.text.slice(0, 200)}`).toBe(200);
        expect(got.json?.data?.language_list, `operator ${b.operatorId} is tied to its one language (${b.languages.join(', ')})`).toEqual(b.languages);
      }
    });
  });

test('platform API: HTTPS connector apps, installation with idConnectorVersion, rules, and a bot created through the creation flow now',
  clauses('BOT-SETUP-05', 'BOT-SETUP-01', 'BOT-SETUP-02', 'BOT-SETUP-04', 'BOT-QUERY-01', 'BOT-SIG-01').needs('sim', 'platform', 'connector_url'), async ({ bot, api, target }) => {
    const { conv } = await bot.seededBots('none');
    const base = target.platform_url ?? `${target.base_url}/platform`;
    const h = { 'x-api-key': target.api_key };
    // Connector secrets of this check never reach the report.
    for (const s of ['secret-123456', 'another-secret-42']) addSecret(s);
    const created: string[] = [];
    try {
      // The platform API's own answers are decisions of G17 (BOT-SETUP-05); the creation flow they start is the spec's.
      const denied = await api.postJson(`${base}/connector-apps`, { name: 'x', baseUrl: target.connector_url, secret: 'secret-123456' });
      under('BOT-SETUP-05', () => expect(denied.status, 'no API key: refused').toBe(403));
      const plain = await api.postJson(`${base}/connector-apps`, { name: 'plain', pluginKind: 'bot', baseUrl: 'http://127.0.0.1:9/', secret: 'secret-123456' }, h);
      under('BOT-SETUP-05', () => expect(plain.status, 'a plain-http base URL is refused').toBe(400));
      // Under a path the fake connector does not serve, with a secret it does not know: the flow of this app fails, and its
      // calls never look like the service's own (the connector logs them as unknown paths).
      const app = await api.postJson(`${base}/connector-apps`, { name: 'Checked connector', pluginKind: 'bot', baseUrl: `${target.connector_url}/refusing`, secret: 'another-secret-42' }, h);
      under('BOT-SETUP-05', () => expect(app.status, app.text).toBe(201));
      notJudgedIf(app.status !== 201, `the platform API did not register a connector app (${app.status}): the creation flow cannot be run now`);
      const inst = await api.postJson(`${base}/connector-apps/${app.json.id}/installations`, { websiteId: conv.websiteId }, h);
      under('BOT-SETUP-05', () => {
        expect(inst.status, inst.text).toBe(201);
        expect(inst.json.idConnectorVersion).toMatch(UUID);
      });
      const rule = await api.postJson(`${base}/distribution-rules`, { label: 'Checked queue', queueSlots: 2, operatorIds: conv.distributionRules[0]!.operatorIds }, h);
      under('BOT-SETUP-05', () => {
        expect(rule.status, rule.text).toBe(201);
        expect(rule.json.asynchronous, 'queue slots > 0: asynchronous').toBe(true);
      });
      notJudgedIf(inst.status !== 201 || rule.status !== 201, `the platform API did not install the app or create a rule (${inst.status}, ${rule.status}): the creation flow cannot be run now`);
      const refused = await api.postJson(`${base}/bots`, { installationId: inst.json.id, name: 'Checked bot', pseudo: 'Checker', language: 'en', distributionRuleIds: [rule.json.id] }, h);
      if (refused.json?.bot?.idOperator) created.push(refused.json.bot.idOperator);
      under('BOT-SETUP-05', () => expect(refused.status, 'a connector that refuses the calls fails the creation flow').toBe(502));
      // On the seeded installation the flow runs now, under the service's current behaviour.
      const seededInstall = (await api.request({ url: `${base}/installations`, headers: h })).json.data.find((i: { websiteId: number; id: number }) => i.websiteId === conv.websiteId && i.id !== inst.json.id);
      const since = await bot.lastSeq();
      const ok = await api.postJson(`${base}/bots`, { installationId: seededInstall.id, name: 'Checked bot', pseudo: 'Checker', language: 'en', distributionRuleIds: [rule.json.id], idBot: 'spare' }, h);
      const idOperator = ok.json?.idOperator ?? ok.json?.bot?.idOperator;
      if (idOperator) created.push(idOperator);
      await bot.waitRequest({ endpoint: 'bot-get', idOperator: idOperator ?? 'none', since }, 3_000);
      // What the connector received in this flow, whatever the service made of it.
      const { requests } = await bot.requests({ since });
      const flow = requests.filter((r) => r.endpoint === 'external-bots' || ((r.endpoint === 'bot-put' || r.endpoint === 'bot-get') && r.idOperator === String(idOperator)));
      judgeQueryAndSignature(flow, conv.websiteId);
      under('BOT-SETUP-05', () => expect(ok.status, ok.text).toBe(201));
      notJudgedIf(!idOperator, `the platform API created no bot (${ok.status} ${ok.text.slice(0, 200)}); the connector's log of the flow: ${flow.map(quoteCall).join('; ') || 'no call'}`);
      const fresh: SimBot | undefined = (await bot.bots()).find((b) => String(b.operatorId) === String(idOperator));
      under('BOT-SETUP-01', () => expect(fresh, `the created bot operator ${idOperator} is listed`).toBeTruthy());
      under('BOT-SETUP-04', () => expect(fresh!.languages, 'the created bot operator has exactly one language').toEqual(['en']));
      expectFlow(requests, fresh!, 'created through the platform API');
      // The scenario is free again before the two-language attempt: a scenario binds one bot agent only, so on a bound scenario
      // the attempt would be refused for that reason, whatever the service does with languages.
      const removed = await api.request({ method: 'DELETE', url: `${base}/bots/${idOperator}`, headers: h });
      notJudgedIf(removed.status >= 300, `the platform API did not remove bot ${idOperator} (${removed.status}): scenario spare stays bound, the two-language attempt cannot be judged`);
      created.splice(created.indexOf(idOperator), 1);
      const multi = await api.postJson(`${base}/bots`, { installationId: seededInstall.id, name: 'Two languages', pseudo: 'Bi', language: 'en,fr', idBot: 'spare' }, h);
      const multiId = multi.json?.idOperator ?? multi.json?.bot?.idOperator;
      if (multiId) created.push(multiId);
      // The spec: one language per bot operator (a refusal, however answered); the status code is G17's decision.
      under('BOT-SETUP-04', () => expect(multi.status, `a bot operator with two languages is not created (${multi.status} ${multi.text.slice(0, 120)})`).toBeGreaterThanOrEqual(400));
      under('BOT-SETUP-05', () => expect(multi.status, 'refused with 400').toBe(400));
    } finally {
      // Bots made here stop being polled.
      for (const id of created) await api.request({ method: 'DELETE', url: `${base}/bots/${id}`, headers: h });
    }
  });

test('a scenario is bound to only one bot agent: a second binding (POST or PUT /platform/bots) is refused naming the bot that holds it; the creation flow picks a free scenario',
  clauses('BOT-SETUP-03').needs('sim', 'platform', 'connector_url'), async ({ bot, api, target }) => {
    const { conv, lab } = await bot.seededBots('both');
    expect(conv.idBot, 'the seeded bot operators hold two scenarios').not.toBe(lab.idBot);
    const base = target.platform_url ?? `${target.base_url}/platform`;
    const h = { 'x-api-key': target.api_key };
    const installs = await step('BOT-SETUP-05', 'GET {platform_url}/installations', async () => {
      const res = await api.request({ url: `${base}/installations`, headers: h });
      expect(Array.isArray(res.json?.data), `the platform API lists its installations: ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
      return res.json.data as Array<{ id: number; appId: number; websiteId: number }>;
    });
    const seeded = installs.filter((i) => i.websiteId === conv.websiteId).sort((a, b) => a.id - b.id)[0]!;
    const appInstalls = new Set(installs.filter((i) => i.appId === seeded.appId).map((i) => i.id));
    const created: string[] = [];
    const body = (name: string, extra: Record<string, unknown> = {}) => ({ installationId: seeded.id, name, pseudo: name, language: 'en', distributionRuleIds: conv.distributionRules.map((r) => r.id), ...extra });
    try {
      // The binding rule is the spec's (BOT-SETUP-03); how the platform API refuses (a 4xx, its wording) is G17's (BOT-SETUP-05).
      const second = await api.postJson(`${base}/bots`, body('Second binding', { idBot: conv.idBot }), h);
      if (second.json?.idOperator) created.push(second.json.idOperator);
      expect(second.status >= 200 && second.status < 300, `POST /platform/bots naming scenario ${conv.idBot}, held by bot operator ${conv.operatorId}, is not accepted: ${second.status} ${second.text.slice(0, 200)}`).toBe(false);
      under('BOT-SETUP-05', () => {
        expect(second.status, 'G17: refused with a 4xx').toBeGreaterThanOrEqual(400);
        expect(second.status).toBeLessThan(500);
        expect(second.text, 'the refusal names the bot operator that holds the scenario').toContain(String(conv.operatorId));
      });

      const held = ((await api.request({ url: `${base}/bots`, headers: h })).json.data as Array<{ idOperator: string; installationId: number; idBot: string | null }>)
        .filter((b) => appInstalls.has(b.installationId) && b.idBot).map((b) => b.idBot);
      const free = await api.postJson(`${base}/bots`, body('Free scenario'), h);
      if (free.json?.idOperator) created.push(free.json.idOperator);
      under('BOT-SETUP-05', () => expect(free.status, `G17: POST /platform/bots answers 201: ${free.text.slice(0, 200)}`).toBe(201));
      await step('BOT-SETUP-05', 'POST /platform/bots without idBot (a bot on a free scenario)', async () => {
        expect(free.status >= 200 && free.status < 300, `POST /platform/bots without idBot takes a free scenario: ${free.status} ${free.text.slice(0, 200)}`).toBe(true);
        expect(free.json?.idOperator, 'the created bot operator').toBeTruthy();
      });
      expect(held, `the creation flow picks a scenario no other bot operator of the app holds (held: ${held.join(', ')})`).not.toContain(free.json.idBot);

      const rebind = await api.request({ method: 'PUT', url: `${base}/bots/${free.json.idOperator}`, headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ idBot: conv.idBot }) });
      expect(rebind.status >= 200 && rebind.status < 300, `PUT /platform/bots/${free.json.idOperator} naming scenario ${conv.idBot} is not accepted: ${rebind.status} ${rebind.text.slice(0, 200)}`).toBe(false);
      under('BOT-SETUP-05', () => {
        expect(rebind.status, 'G17: refused with a 4xx').toBeGreaterThanOrEqual(400);
        expect(rebind.status).toBeLessThan(500);
        expect(rebind.text, 'the refusal names the bot operator that holds the scenario').toContain(String(conv.operatorId));
      });
      const after = await api.request({ url: `${base}/bots/${free.json.idOperator}`, headers: h });
      expect(after.json?.idBot, 'a refused binding leaves the bot on its own scenario').toBe(free.json.idBot);
    } finally {
      for (const id of created) await api.request({ method: 'DELETE', url: `${base}/bots/${id}`, headers: h });
    }
  });
