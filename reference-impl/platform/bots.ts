// Platform API (G17) for bots: connector apps, installations, distribution and routing rules, bot operators (docs/platform-api.md).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../../lib/limits.js';
import { list } from '../store/db.js';
import { routingRuleAvailability } from '../bots/availability.js';
import { bindingRefusal, botOperator, createBotOnConnector, installation, type DistributionRule } from '../bots/setup.js';

const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ error: 'invalid_request', message });
const notFound = (reply: FastifyReply, what: string) => reply.code(404).send({ error: 'not_found', message: `unknown ${what}` });
const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const intList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));
/** The scheme of a URL (`https:`), or '' when it is not one. */
const schemeOf = (url: string): string => { try { return new URL(url).protocol; } catch { return ''; } };

/** Registers the routes on the platform scope (its hook has authenticated the client). */
export default function registerBots(app: FastifyInstance): void {
  const ces = app.ces;
  const { db } = ces;
  const { connector: client, poller, ready: onBotReady } = ces.bots;
  const iso = (ms: number) => new Date(ms).toISOString();

  const clientOf = (req: FastifyRequest) => req.platformClient.id;

  const appView = (a: any) => ({ id: a.id, name: a.name, pluginKind: a.plugin_kind, baseUrl: a.base_url, createdAt: iso(a.created_at) });
  const installView = (i: any) => ({ id: i.id, appId: i.app_id, websiteId: i.website_id, idConnectorVersion: i.id_connector_version, createdAt: iso(i.created_at) });
  const ruleView = (r: DistributionRule) => ({ id: r.id, label: r.label, queueSlots: r.queue_slots, asynchronous: r.queue_slots > 0, operatorIds: list<number>(r.operator_ids) });
  const routingView = (r: any) => ({ id: r.id, websiteId: r.website_id, label: r.label, channels: list<string>(r.channels), operatorIds: list<number>(r.operator_ids), availability: routingRuleAvailability(ces, ces.bots.poller, r.client_id, r.id) });
  const botView = (b: any) => {
    const op = db.prepare('SELECT name, pseudo, language_list FROM operators WHERE id = ?').get(b.operator_id) as any;
    return { idOperator: String(b.operator_id), installationId: b.install_id, name: op?.name, pseudo: op?.pseudo, language: list<string>(op?.language_list)[0] ?? null,
      distributionRuleIds: list<string>(b.distribution_rule_ids), idBot: b.id_bot, status: b.status, lastError: b.last_error, available: poller.isAvailable(b.operator_id) };
  };

  // ---- connector apps ----
  app.get('/connector-apps', async (req) => ({ data: (db.prepare('SELECT * FROM connector_apps WHERE client_id = ? ORDER BY id').all(clientOf(req)) as any[]).map(appView) }));
  app.get<{ Params: { id: string } }>('/connector-apps/:id', async (req, reply) => {
    const a = db.prepare('SELECT * FROM connector_apps WHERE id = ? AND client_id = ?').get(Number(req.params.id), clientOf(req));
    return a ? appView(a) : notFound(reply, 'connector app');
  });
  app.post<{ Body: any }>('/connector-apps', async (req, reply) => {
    const { name, pluginKind = 'bot', baseUrl, secret } = (req.body ?? {}) as any;
    if (!isStr(name)) return bad(reply, 'name is required');
    if (pluginKind !== 'bot') return bad(reply, 'pluginKind must be "bot"');
    const schemes = ces.settings.insecure ? [...ces.policy.platform.connectorSchemes, 'http:'] : ces.policy.platform.connectorSchemes;
    if (!isStr(baseUrl) || !schemes.includes(schemeOf(baseUrl))) return bad(reply, 'baseUrl must be an https:// URL (the connector base URL must use HTTPS)');
    if (!isStr(secret) || secret.length < 8) return bad(reply, 'secret (at least 8 characters) is required');
    const id = Number(db.prepare('INSERT INTO connector_apps (client_id, name, plugin_kind, base_url, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(clientOf(req), name, pluginKind, baseUrl, secret, ces.clock.now()).lastInsertRowid);
    return reply.code(201).send(appView(db.prepare('SELECT * FROM connector_apps WHERE id = ?').get(id)));
  });

  // ---- installations ----
  app.get('/installations', async (req) => ({ data: (db.prepare('SELECT * FROM connector_installs WHERE client_id = ? ORDER BY id').all(clientOf(req)) as any[]).map(installView) }));
  app.post<{ Params: { id: string }; Body: any }>('/connector-apps/:id/installations', async (req, reply) => {
    const a = db.prepare('SELECT * FROM connector_apps WHERE id = ? AND client_id = ?').get(Number(req.params.id), clientOf(req)) as any;
    if (!a) return notFound(reply, 'connector app');
    const w = db.prepare('SELECT id FROM websites WHERE id = ? AND client_id = ?').get(Number((req.body as any)?.websiteId), clientOf(req));
    if (!w) return bad(reply, 'websiteId must be a project of this client');
    const prior = db.prepare('SELECT id FROM connector_installs WHERE app_id = ? AND website_id = ?').get(a.id, Number((req.body as any).websiteId));
    if (prior) return reply.code(409).send({ error: 'conflict', message: 'the app is already installed on this project' });
    const id = Number(db.prepare('INSERT INTO connector_installs (app_id, client_id, website_id, id_connector_version, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(a.id, clientOf(req), Number((req.body as any).websiteId), randomUUID(), ces.clock.now()).lastInsertRowid);
    return reply.code(201).send(installView(db.prepare('SELECT * FROM connector_installs WHERE id = ?').get(id)));
  });
  app.get<{ Params: { id: string } }>('/installations/:id/external-bots', async (req, reply) => {
    const i = db.prepare('SELECT id FROM connector_installs WHERE id = ? AND client_id = ?').get(Number(req.params.id), clientOf(req)) as any;
    const inst = i && installation(ces, i.id);
    if (!inst) return notFound(reply, 'installation');
    const res = await client.call(inst, { endpoint: 'external-bots', method: 'GET', path: '/external-bots', timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/scenarios.json' });
    return res.ok ? { data: res.json } : reply.code(502).send({ error: 'connector_failed', message: res.reason });
  });

  // ---- distribution rules ----
  app.get('/distribution-rules', async (req) => ({ data: (db.prepare('SELECT * FROM distribution_rules WHERE client_id = ? ORDER BY created_at, id').all(clientOf(req)) as DistributionRule[]).map(ruleView) }));
  app.post<{ Body: any }>('/distribution-rules', async (req, reply) => {
    const { label, queueSlots, operatorIds } = (req.body ?? {}) as any;
    if (!isStr(label)) return bad(reply, 'label is required');
    if (!Number.isInteger(queueSlots) || queueSlots < 0) return bad(reply, 'queueSlots must be an integer >= 0 (asynchronous when > 0)');
    if (!intList(operatorIds) || !operatorIds.every((o) => db.prepare(`SELECT id FROM operators WHERE id = ? AND client_id = ? AND type = 'human'`).get(o, clientOf(req)))) return bad(reply, 'operatorIds must list human operators of this client');
    const id = randomUUID();
    db.prepare('INSERT INTO distribution_rules (id, client_id, label, queue_slots, operator_ids, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, clientOf(req), label, queueSlots, JSON.stringify(operatorIds), ces.clock.now());
    return reply.code(201).send(ruleView(db.prepare('SELECT * FROM distribution_rules WHERE id = ?').get(id) as DistributionRule));
  });

  // ---- routing rules ----
  app.get('/routing-rules', async (req) => ({ data: (db.prepare('SELECT * FROM routing_rules WHERE client_id = ? ORDER BY created_at, id').all(clientOf(req)) as any[]).map(routingView) }));
  app.get<{ Params: { id: string } }>('/routing-rules/:id', async (req, reply) => {
    const r = db.prepare('SELECT * FROM routing_rules WHERE id = ? AND client_id = ?').get(req.params.id, clientOf(req));
    return r ? routingView(r) : notFound(reply, 'routing rule');
  });
  app.post<{ Body: any }>('/routing-rules', async (req, reply) => {
    const { websiteId, channels, operatorIds, label } = (req.body ?? {}) as any;
    if (!db.prepare('SELECT id FROM websites WHERE id = ? AND client_id = ?').get(Number(websiteId), clientOf(req))) return bad(reply, 'websiteId must be a project of this client');
    if (!Array.isArray(channels) || !channels.length || !channels.every((c) => ['chat', 'call', 'video'].includes(c))) return bad(reply, 'channels must list chat, call or video');
    if (!intList(operatorIds) || !operatorIds.length || !operatorIds.every((o) => db.prepare('SELECT id FROM operators WHERE id = ? AND client_id = ?').get(o, clientOf(req)))) return bad(reply, 'operatorIds must list operators of this client');
    const id = randomUUID();
    db.prepare('INSERT INTO routing_rules (id, client_id, website_id, label, channels, operator_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, clientOf(req), Number(websiteId), isStr(label) ? label : `Rule ${id.slice(0, 8)}`, JSON.stringify(channels), JSON.stringify(operatorIds), ces.clock.now());
    return reply.code(201).send(routingView(db.prepare('SELECT * FROM routing_rules WHERE id = ?').get(id)));
  });

  // ---- bot operators: the bot creation flow ----
  app.get('/bots', async (req) => ({ data: (db.prepare('SELECT * FROM bot_operators WHERE client_id = ? ORDER BY operator_id').all(clientOf(req)) as any[]).map(botView) }));
  app.get<{ Params: { idOperator: string } }>('/bots/:idOperator', async (req, reply) => {
    const b = botOperator(ces, Number(req.params.idOperator));
    if (!b || b.client_id !== clientOf(req)) return notFound(reply, 'bot operator');
    const inst = installation(ces, b.install_id)!;
    const res = await client.call(inst, { endpoint: 'bot-get', method: 'GET', path: `/bots/${b.operator_id}`, timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/bot.json', operatorId: b.operator_id });
    return { ...botView(b), connector: res.ok ? res.json : null, connectorError: res.ok ? null : res.reason };
  });
  const upsertBot = async (req: FastifyRequest, reply: FastifyReply, existing?: number) => {
    const body = (req.body ?? {}) as Record<string, any>;
    const clientId = clientOf(req);
    const prev = existing !== undefined ? botOperator(ces, existing) : undefined;
    if (existing !== undefined && (!prev || prev.client_id !== clientId)) return notFound(reply, 'bot operator');
    const installId = prev?.install_id ?? Number(body.installationId);
    if (!db.prepare('SELECT id FROM connector_installs WHERE id = ? AND client_id = ?').get(installId, clientId)) return bad(reply, 'installationId must be an installation of this client');
    // A bot operator is tied to exactly one language.
    if (body.language !== undefined && !(isStr(body.language) && new RegExp(ces.policy.platform.botLanguagePattern).test(body.language))) return bad(reply, 'language must be exactly one two-letter code');
    if (!prev && (!isStr(body.name) || !isStr(body.pseudo) || !isStr(body.language))) return bad(reply, 'name, pseudo and language are required');
    const notText = (['name', 'pseudo', 'idBot'] as const).filter((k) => body[k] !== undefined && !isStr(body[k]));
    if (notText.length) return bad(reply, `${notText.join(', ')} must be non-empty strings`);
    const ruleIds = body.distributionRuleIds ?? (prev ? list<string>(prev.distribution_rule_ids) : []);
    if (!Array.isArray(ruleIds) || !ruleIds.every((r: unknown) => isStr(r) && db.prepare('SELECT id FROM distribution_rules WHERE id = ? AND client_id = ?').get(r, clientId))) return bad(reply, 'distributionRuleIds must list distribution rules of this client');
    // A scenario can be bound to only one bot agent: a second binding is refused, naming the bot operator that holds the scenario.
    const taken = isStr(body.idBot) ? bindingRefusal(ces, installId, body.idBot, existing) : null;
    if (taken) return reply.code(409).send({ error: 'conflict', message: taken });
    const now = ces.clock.now();
    const website = (db.prepare('SELECT website_id FROM connector_installs WHERE id = ?').get(installId) as { website_id: number }).website_id;
    // Everything is validated above; the writes happen together or not at all.
    const opId = db.transaction((): number => {
      let id = existing;
      if (id === undefined) {
        id = Number(db.prepare(`INSERT INTO operators (client_id, type, name, first_name, pseudo, email, external_id, roles, chat_enabled, call_enabled, video_enabled, chat_max_number,
          chat_and_call, chat_priority, call_priority, video_priority, language_list, language_admin, group_id, website_list, skill_list, sso_key, created_at, updated_at)
          VALUES (?, 'bot', ?, 'Bot', ?, ?, NULL, '["operator"]', 1, 0, 0, 100, 0, 0, 0, 0, ?, 'en', NULL, ?, '[]', ?, ?, ?)`)
          .run(clientId, body.name, body.pseudo, `bot-${randomUUID().slice(0, 8)}@bots.example`, JSON.stringify(String(body.language).split(',')), JSON.stringify([website]), randomUUID().replace(/-/g, ''), now, now).lastInsertRowid);
        db.prepare(`INSERT INTO bot_operators (operator_id, client_id, install_id, id_bot, distribution_rule_ids, status, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, 'pending', ?, ?)`)
          .run(id, clientId, installId, JSON.stringify(ruleIds), now, now);
      } else {
        if (isStr(body.name)) db.prepare('UPDATE operators SET name = ?, updated_at = ? WHERE id = ?').run(body.name, now, id);
        if (isStr(body.pseudo)) db.prepare('UPDATE operators SET pseudo = ?, updated_at = ? WHERE id = ?').run(body.pseudo, now, id);
        if (isStr(body.language)) db.prepare('UPDATE operators SET language_list = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(body.language.split(',')), now, id);
        db.prepare('UPDATE bot_operators SET distribution_rule_ids = ?, updated_at = ? WHERE operator_id = ?').run(JSON.stringify(ruleIds), now, id);
      }
      return id;
    })();
    const res = await createBotOnConnector(ces, client, opId, isStr(body.idBot) ? body.idBot : undefined);
    if (!res.ok) return reply.code(res.conflict ? 409 : 502).send({ error: res.conflict ? 'conflict' : 'connector_failed', message: res.error, bot: botView(botOperator(ces, opId)) });
    onBotReady(opId);
    return reply.code(existing === undefined ? 201 : 200).send(botView(botOperator(ces, opId)));
  };
  app.post('/bots', async (req, reply) => upsertBot(req, reply));
  // Deleting a bot stops its polling and its routing; the operator row stays (history refers to it) but is no bot of a connector any more.
  app.delete<{ Params: { idOperator: string } }>('/bots/:idOperator', async (req, reply) => {
    const b = botOperator(ces, Number(req.params.idOperator));
    if (!b || b.client_id !== clientOf(req)) return notFound(reply, 'bot operator');
    db.transaction(() => {
      db.prepare('DELETE FROM bot_operators WHERE operator_id = ?').run(b.operator_id);
      for (const r of db.prepare('SELECT id, operator_ids FROM routing_rules WHERE client_id = ?').all(b.client_id) as Array<{ id: string; operator_ids: string }>) {
        const ops = list<number>(r.operator_ids);
        if (ops.includes(b.operator_id)) db.prepare('UPDATE routing_rules SET operator_ids = ? WHERE id = ?').run(JSON.stringify(ops.filter((o) => o !== b.operator_id)), r.id);
      }
    })();
    poller.remove(b.operator_id);
    return { idOperator: String(b.operator_id) };
  });
  app.put<{ Params: { idOperator: string } }>('/bots/:idOperator', async (req, reply) => upsertBot(req, reply, Number(req.params.idOperator)));
}
