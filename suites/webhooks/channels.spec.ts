// v2.conversation.closed on every channel of the spec's list (and, as G30 decides, social_d and social_e), and the deprecated satisfaction.filled of G33.
import { randomUUID } from 'node:crypto';
import { test, expect, clauses, needs, PROMPT_MS, clientIdOf, type Hooks } from './helpers.js';
import { expectPayload, notJudgedIf } from '../verdicts.js';

/** The spec's channels of v2.conversation.closed (Event kinds), by the service channel a visitor starts on. */
const SPEC_CHANNELS: Record<string, string> = { chat: 'CHAT', call: 'CALL', video: 'VIDEO', social_a: 'SOCIAL_A', social_c: 'SOCIAL_C', social_b: 'SOCIAL_B', mobile_app: 'MOBILE_APP', sms: 'SMS' };
const ONSITE = new Set(['chat', 'call', 'video']);

/** Starts then closes one conversation per channel through the sim API; the UUID of each. */
async function startAndClose(hooks: Hooks, channels: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const channel of channels) {
    const res = await hooks.sim.startConversation({ channel, text: `closing a ${channel} conversation`, visitorId: `wh-${randomUUID().slice(0, 12)}` });
    expect(res.status, `sim conversation start on ${channel}: ${res.text}`).toBe(201);
    out.set(channel, res.json.conversationId);
  }
  for (const [channel, uuid] of out) {
    const closed = await hooks.sim.close(uuid);
    expect(closed.status, `sim close of the ${channel} conversation: ${closed.text}`).toBe(200);
  }
  return out;
}

/** The one v2.conversation.closed of each conversation: its payload shape, its channel, visitorExternalId null offsite. */
async function expectClosed(hooks: Hooks, sub: Awaited<ReturnType<Hooks['subscribe']>>, uuids: Map<string, string>, names: Record<string, string>, clientId: number): Promise<void> {
  for (const [channel, uuid] of uuids) {
    const ds = (await hooks.wait(sub, { eventType: 'v2.conversation.closed', 'body.conversationId': uuid }, 1, PROMPT_MS)).deliveries;
    expect(ds.length, `v2.conversation.closed arrives when the ${channel} conversation ends`).toBe(1);
    const p = ds[0]!.json;
    expectPayload('webhooks/v2.conversation.closed.json', p, `the ${channel} payload`);
    expect(p.channel, `the ${channel} conversation closes with channel ${names[channel]}`).toBe(names[channel]);
    expect(p.clientId).toBe(clientId);
    if (ONSITE.has(channel)) expect(typeof p.visitorExternalId, `${channel} is onsite: visitorExternalId is a String`).toBe('string');
    else expect(p.visitorExternalId, `${channel} is offsite: visitorExternalId is null`).toBeNull();
  }
}

test.describe('conversation closes on every channel', needs('platform', 'sim', 'sink_url'), () => {
  test('every channel of the spec (CHAT, CALL, VIDEO, SOCIAL_A, SOCIAL_C, SOCIAL_B, MOBILE_APP, SMS): v2.conversation.closed when a conversation ends, visitorExternalId null offsite',
    clauses('WH-EVT-03'), async ({ hooks, target }) => {
      const sub = await hooks.subscribe({ events: ['v2.conversation.closed'] });
      const uuids = await startAndClose(hooks, Object.keys(SPEC_CHANNELS));
      await expectClosed(hooks, sub, uuids, SPEC_CHANNELS, clientIdOf(target, target.api_key));
    });

  test('the other offsite channels social_d and social_e close with v2.conversation.closed too (SOCIAL_D, SOCIAL_E), visitorExternalId null',
    clauses('WH-EVT-12'), async ({ hooks, target }) => {
      const sub = await hooks.subscribe({ events: ['v2.conversation.closed'] });
      const uuids = await startAndClose(hooks, ['social_d', 'social_e']);
      await expectClosed(hooks, sub, uuids, { social_d: 'SOCIAL_D', social_e: 'SOCIAL_E' }, clientIdOf(target, target.api_key));
    });
});

test.describe('satisfaction answers', needs('platform', 'sim', 'sink_url'), () => {
  test('a satisfaction answer stored: the deprecated satisfaction.filled goes to a subscription that opted in, in its payload shape (score an integer)',
    clauses('WH-EVT-13'), async ({ hooks, target }) => {
      const sub = await hooks.subscribe({ events: ['satisfaction.filled'], includeDeprecated: true });
      const start = await hooks.sim.startConversation({ channel: 'call', text: 'rate me afterwards', visitorId: `wh-${randomUUID().slice(0, 12)}` });
      expect(start.status, start.text).toBe(201);
      const uuid = start.json.conversationId as string;
      expect((await hooks.sim.close(uuid)).status).toBe(200);
      const notes = { noteWelcome: 80, noteResolution: 65, nodeDelay: 90, comment: 'quick and kind' };
      const answered = await hooks.sim.satisfaction(uuid, notes);
      notJudgedIf(answered.status === 404, 'the simulation API takes no satisfaction answers (POST {sim_url}/conversations/{id}/satisfaction): nothing raises satisfaction.filled');
      expect(answered.status, `the satisfaction answer: ${answered.text}`).toBe(201);
      const view = (await hooks.sim.conversation(uuid)).json;
      const ds = (await hooks.wait(sub, { eventType: 'satisfaction.filled', 'body.conversationId': view.id }, 1, PROMPT_MS)).deliveries;
      notJudgedIf(ds.length === 0, 'no satisfaction.filled arrived: a service may never send deprecated kinds (G33)');
      const p = ds[0]!.json;
      expectPayload('webhooks/satisfaction.filled.json', p);
      expect(p.clientId).toBe(clientIdOf(target, target.api_key));
      expect(p.conversationId, 'conversationId is the integer id of the conversation rated').toBe(view.id);
      expect(p.operatorId, 'operatorId is the operator who answered it').toBe(view.operatorId);
      expect(p.visitorId, 'visitorId is the visitor unique id').toBe(view.visitorId);
      expect(p.score, 'score: the mean of the three notes as an integer').toBe(Math.round((notes.noteWelcome + notes.noteResolution + notes.nodeDelay) / 3));
    });
});
