// Connector apps, installs, distribution/routing rules and bot operators: the seed, the bot creation flow (endpoints 1-3) and its background retry.
import { randomUUID } from 'node:crypto';
import { LIMITS } from '../../lib/limits.js';
import { list } from '../store/db.js';
import type { Core } from '../core.js';
import type { ConnectorClient, Installation } from './connector-client.js';
import { rows } from '../store/read.js';

export interface DistributionRule { id: string; client_id: number; label: string; queue_slots: number; operator_ids: string; created_at: number }
export interface RoutingRule { id: string; client_id: number; website_id: number; label: string; channels: string; operator_ids: string; created_at: number }
export interface BotOperatorRow {
  operator_id: number; client_id: number; install_id: number; id_bot: string | null; distribution_rule_ids: string;
  status: string; last_error: string | null; bot_json: string | null; created_at: number; updated_at: number;
}

export function installation(ces: Core, installId: number): Installation | null {
  const r = ces.db.prepare(`SELECT i.id, i.website_id, i.id_connector_version, a.base_url, a.secret FROM connector_installs i
    JOIN connector_apps a ON a.id = i.app_id WHERE i.id = ?`).get(installId) as { id: number; website_id: number; id_connector_version: string; base_url: string; secret: string } | undefined;
  return r ? { installId: r.id, baseUrl: r.base_url, secret: r.secret, idConnectorVersion: r.id_connector_version, websiteId: r.website_id } : null;
}

export function botOperator(ces: Core, operatorId: number): BotOperatorRow | undefined {
  return ces.db.prepare('SELECT * FROM bot_operators WHERE operator_id = ?').get(operatorId) as BotOperatorRow | undefined;
}

export function distributionRule(ces: Core, clientId: number, id: string): DistributionRule | undefined {
  return ces.db.prepare('SELECT * FROM distribution_rules WHERE id = ? AND client_id = ?').get(id, clientId) as DistributionRule | undefined;
}

/** Human operators of the rule that are connected and available for chat (operator live availability), in id order; `read` names the lookup. */
export function availableOperatorsOfRule(ces: Core, rule: DistributionRule, read = 'operators available in a rule'): number[] {
  const ids = list<number>(rule.operator_ids);
  if (!ids.length) return [];
  const live = rows(ces, read, { table: 'operator_live', columns: 'operator_id', where: { 'operator_id in': ids, connected: 1, chat_available: 1 }, order: 'operator_id' });
  const humans = new Set(rows(ces, 'human operators', { table: 'operators', columns: 'id', where: { 'id in': ids, type: 'human' } }).map((o) => o.id as number));
  return live.map((l) => l.operator_id as number).filter((id) => humans.has(id));
}

/** Seeds, when the bot tables are empty, one connector app on the configured connector installed on client 1's websites, rules and the bot operators. */
export function seedBots(ces: Core): void {
  const { db, settings, clock } = ces;
  if (!settings.connectorUrl) return;
  const seeded = db.prepare(`SELECT id, base_url, secret FROM connector_apps WHERE name = 'Seeded bot connector' ORDER BY id LIMIT 1`).get() as { id: number; base_url: string; secret: string } | undefined;
  if (seeded) {
    // A restart (--db file) brings a new fake connector (new port, empty memory) or another --connector-url: point the seeded app at it and create its bots there again.
    if (seeded.base_url !== settings.connectorUrl || seeded.secret !== settings.connectorSecret) {
      db.prepare('UPDATE connector_apps SET base_url = ?, secret = ? WHERE id = ?').run(settings.connectorUrl, settings.connectorSecret, seeded.id);
      db.prepare(`UPDATE bot_operators SET status = 'pending' WHERE install_id IN (SELECT id FROM connector_installs WHERE app_id = ?)`).run(seeded.id);
    }
    return;
  }
  if ((db.prepare('SELECT COUNT(*) AS n FROM connector_apps').get() as { n: number }).n > 0) return;
  const client = db.prepare('SELECT id FROM clients ORDER BY id LIMIT 1').get() as { id: number } | undefined;
  if (!client) return;
  const websites = (db.prepare('SELECT id FROM websites WHERE client_id = ? ORDER BY id').all(client.id) as Array<{ id: number }>).map((w) => w.id);
  const bots = (db.prepare(`SELECT id FROM operators WHERE client_id = ? AND type = 'bot' ORDER BY id`).all(client.id) as Array<{ id: number }>).map((b) => b.id);
  if (!websites.length || !bots.length) return;
  const now = clock.now();
  const version = randomUUID();
  db.transaction(() => {
    const app = Number(db.prepare(`INSERT INTO connector_apps (client_id, name, plugin_kind, base_url, secret, created_at) VALUES (?, 'Seeded bot connector', 'bot', ?, ?, ?)`)
      .run(client.id, settings.connectorUrl, settings.connectorSecret, now).lastInsertRowid);
    // Bot 1 serves the first website (conversation checks); bot 2 the second one (timing and availability checks), so they never disturb each other.
    const installs = websites.slice(0, Math.min(2, bots.length)).map((w) => Number(db.prepare(`INSERT INTO connector_installs (app_id, client_id, website_id, id_connector_version, created_at) VALUES (?, ?, ?, ?, ?)`)
      .run(app, client.id, w, version, now).lastInsertRowid));
    const humans = (db.prepare(`SELECT o.id, l.connected, l.chat_available FROM operators o LEFT JOIN operator_live l ON l.operator_id = o.id
      WHERE o.client_id = ? AND o.type = 'human' ORDER BY o.id`).all(client.id) as Array<{ id: number; connected: number | null; chat_available: number | null }>);
    const available = humans.filter((h) => h.connected === 1 && h.chat_available === 1).map((h) => h.id);
    const absent = humans.filter((h) => !h.connected).map((h) => h.id);
    const rule = (label: string, slots: number, ops: number[]) => {
      const id = randomUUID();
      db.prepare('INSERT INTO distribution_rules (id, client_id, label, queue_slots, operator_ids, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, client.id, label, slots, JSON.stringify(ops), now);
      return id;
    };
    const rules = [rule('Support (asynchronous)', 5, available.slice(0, 3)), rule('Sales (no queue)', 0, available.slice(0, 3)), rule('Night shift (asynchronous, nobody online)', 3, absent.slice(0, 3))];
    installs.forEach((installId, i) => {
      const botId = bots[i]!;
      db.prepare(`INSERT INTO bot_operators (operator_id, client_id, install_id, id_bot, distribution_rule_ids, status, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, 'pending', ?, ?)`)
        .run(botId, client.id, installId, JSON.stringify(rules), now, now);
      db.prepare('INSERT INTO routing_rules (id, client_id, website_id, label, channels, operator_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(randomUUID(), client.id, websites[i]!, `Chat of website ${websites[i]} to bot ${botId}`, JSON.stringify(['chat']), JSON.stringify([botId]), now);
    });
  })();
}

/** The bot write body (PUT /bots/{idOperator}) of a bot operator. */
export function writeBody(ces: Core, bot: BotOperatorRow, idBot: string) {
  const op = ces.db.prepare('SELECT name, pseudo, language_list FROM operators WHERE id = ?').get(bot.operator_id) as { name: string; pseudo: string; language_list: string };
  const rules = list<string>(bot.distribution_rule_ids).map((id) => distributionRule(ces, bot.client_id, id)).filter((r): r is DistributionRule => !!r);
  return { name: op.name, pseudo: op.pseudo, language: list<string>(op.language_list)[0] ?? 'en', distributionRules: rules.map((r) => ({ id: r.id, label: r.label })), external: { idBot } };
}

/**
 * The bot operators of the same connector app (every installation) bound to scenario `idBot`, other than `operatorId`: a scenario can be
 * bound to only one bot agent (endpoint 1), so a binding is refused while this list is as long as the policy allows (one).
 */
export function scenarioHolders(ces: Core, installId: number, idBot: string, operatorId?: number): number[] {
  const app = ces.db.prepare('SELECT app_id FROM connector_installs WHERE id = ?').get(installId) as { app_id: number } | undefined;
  if (!app) return [];
  return (ces.db.prepare(`SELECT b.operator_id FROM bot_operators b JOIN connector_installs i ON i.id = b.install_id
    WHERE i.app_id = ? AND b.id_bot = ? AND b.operator_id != ? ORDER BY b.operator_id`).all(app.app_id, idBot, operatorId ?? -1) as Array<{ operator_id: number }>).map((r) => r.operator_id);
}

/** Why scenario `idBot` cannot be bound to bot operator `operatorId` (another bot of the app holds it), or null. */
export function bindingRefusal(ces: Core, installId: number, idBot: string, operatorId?: number): string | null {
  const holders = scenarioHolders(ces, installId, idBot, operatorId);
  if (holders.length < ces.policy.bots.botsPerScenario) return null;
  return `scenario ${idBot} is bound to bot operator ${holders.join(', ')} already: a scenario can be bound to only one bot agent`;
}

/** Endpoint 1 then 2 then 3 for one bot operator; picks the first scenario not bound to another bot of the same app when none is chosen. */
export async function createBotOnConnector(ces: Core, client: ConnectorClient, operatorId: number, wantedIdBot?: string): Promise<{ ok: boolean; error?: string; conflict?: boolean }> {
  const bot = botOperator(ces, operatorId);
  if (!bot) return { ok: false, error: 'not a bot operator' };
  const inst = installation(ces, bot.install_id);
  if (!inst) return { ok: false, error: 'installation missing' };
  const fail = (error: string) => {
    ces.db.prepare(`UPDATE bot_operators SET status = 'failed', last_error = ?, updated_at = ? WHERE operator_id = ?`).run(error, ces.clock.now(), operatorId);
    return { ok: false, error };
  };
  let idBot = wantedIdBot ?? bot.id_bot ?? undefined;
  const listed = await client.call(inst, { endpoint: 'external-bots', method: 'GET', path: '/external-bots', timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/scenarios.json', operatorId });
  if (!listed.ok) return fail(`GET /external-bots: ${listed.reason}`);
  const scenarios = listed.json as Array<{ idBot: string }>;
  if (!idBot) {
    // A scenario can be bound to only one bot agent: the first scenario nobody else holds.
    idBot = scenarios.find((s) => bindingRefusal(ces, bot.install_id, s.idBot, operatorId) === null)?.idBot;
    if (!idBot) return fail('no free scenario: the connector lists fewer scenarios than bot operators');
  } else if (!scenarios.some((s) => s.idBot === idBot)) return fail(`scenario ${idBot} is not listed by the connector`);
  // Checked again after the connector's answer: another creation flow may have taken the scenario meanwhile.
  const taken = bindingRefusal(ces, bot.install_id, idBot, operatorId);
  if (taken) return { ...fail(taken), conflict: true };
  const put = await client.call(inst, { endpoint: 'bot-put', method: 'PUT', path: `/bots/${encodeURIComponent(String(operatorId))}`, body: writeBody(ces, bot, idBot),
    timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/bot.json', operatorId });
  if (!put.ok) return fail(`PUT /bots/${operatorId}: ${put.reason}`);
  const got = await client.call(inst, { endpoint: 'bot-get', method: 'GET', path: `/bots/${encodeURIComponent(String(operatorId))}`, timeoutMs: LIMITS.configEndpointTimeoutMs, schema: 'connector/bot.json', operatorId });
  if (!got.ok) return fail(`GET /bots/${operatorId}: ${got.reason}`);
  ces.db.prepare(`UPDATE bot_operators SET status = 'ready', last_error = NULL, id_bot = ?, bot_json = ?, updated_at = ? WHERE operator_id = ?`)
    .run(idBot, JSON.stringify(got.json), ces.clock.now(), operatorId);
  return { ok: true };
}
