// Read-only views of the bots and webhooks areas' tables for the console pages: every client's data, never a secret.
import type { ServiceContext } from '../context.js';
import { list } from '../store/db.js';
import type { Exchange } from '../bots/connector-client.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** Bodies shown in the inspector are cut here (a connector may answer megabytes). */
export const BODY_SHOWN_MAX = 8_000;
/** Conversations listed in the inspector (newest first). */
export const CONVERSATIONS_LISTED = 200;
/** Webhook deliveries listed in the inspector (newest first). */
export const DELIVERIES_LISTED = 100;
/** Availability polls kept per bot in the inspector's view. */
export const POLLS_SHOWN = 10;

/** A URL as the pages show it: no user-info, no query values (a token in a query string stays on the server). */
export function publicUrl(raw: string, keepQueryNames: string[] = []): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    for (const k of [...u.searchParams.keys()]) if (!keepQueryNames.includes(k)) u.searchParams.set(k, '…');
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/** Every secret the service holds (API keys, connector and webhook secrets): replaced in anything the console sends. */
export function knownSecrets(ces: ServiceContext): string[] {
  const { db, settings } = ces;
  const col = (sql: string) => (db.prepare(sql).all() as Array<{ s: string | null }>).map((r) => r.s).filter((s): s is string => !!s && s.length >= 4);
  return [
    ...col('SELECT api_key AS s FROM clients'),
    ...col('SELECT secret AS s FROM connector_apps'),
    ...col('SELECT secret AS s FROM webhook_subscriptions'),
    settings.connectorSecret, settings.webhookSecret ?? '',
  ].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

/** JSON text with every known secret replaced by ***: the last guard before a byte leaves for a page (deviation console-secret-shown lifts it). */
export function redactJson(ces: ServiceContext, value: unknown): string {
  const text = JSON.stringify(value);
  return ces.policy.console.secretsKept ? mask(text, knownSecrets(ces)) : text;
}

/** `text` with every secret (as it appears inside JSON strings) replaced by ***. */
function mask(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(JSON.stringify(s).slice(1, -1)).join('***');
  return out;
}

/** The exchange as the inspector shows it: path and query names of the connector URL, bodies cut, never headers (the G2 signature). */
function exchangeView(ex: Exchange) {
  const cut = (s: string | null) => (s === null ? null : s.length > BODY_SHOWN_MAX ? `${s.slice(0, BODY_SHOWN_MAX)}… (${s.length} characters)` : s);
  return {
    endpoint: ex.endpoint, method: ex.method, url: publicUrl(ex.url, ['idConnectorVersion', 'idWebsite', 'idOperator']), status: ex.status, ms: ex.ms,
    failure: ex.failure, at: iso(ex.at), requestBody: cut(ex.requestBody), responseBody: cut(ex.responseBody),
  };
}

export function conversationList(ces: ServiceContext) {
  const rows = ces.db.prepare(`SELECT c.id, c.uuid, c.client_id, c.website_id, c.channel, c.operator_id, c.created_at, c.closed_at, c.last_activity_at,
      s.phase, s.bot_operator_id, s.close_reason,
      (SELECT COUNT(*) FROM conversation_failures f WHERE f.conversation_id = c.id) AS failures,
      (SELECT COUNT(*) FROM conversation_transcript t WHERE t.conversation_id = c.id) AS messages
    FROM conversations c LEFT JOIN conversation_state s ON s.conversation_id = c.id ORDER BY c.id DESC LIMIT ?`).all(CONVERSATIONS_LISTED) as any[];
  return rows.map((r) => ({
    conversationId: r.uuid, clientId: r.client_id, websiteId: r.website_id, channel: r.channel, state: r.closed_at ? 'closed' : 'started',
    phase: r.phase ?? 'human', closeReason: r.close_reason ?? null, operatorId: r.operator_id, botOperatorId: r.bot_operator_id ?? null,
    createdAt: iso(r.created_at), closedAt: iso(r.closed_at), lastActivityAt: iso(r.last_activity_at), failures: r.failures, messages: r.messages,
  }));
}

/** One conversation: the simulation API's view plus its service ↔ connector exchanges. */
export function conversationDetail(ces: ServiceContext, uuid: string) {
  const row = ces.db.prepare('SELECT id FROM conversations WHERE uuid = ?').get(uuid) as { id: number } | undefined;
  if (!row) return null;
  return { ...ces.bots.runtime.view(row.id), exchanges: ces.bots.exchanges.ofConversation(row.id).map(exchangeView) };
}

/** Bot operators with their availability as polled (endpoint 4): verdict, strategies, last polls. */
export function botsView(ces: ServiceContext) {
  const bots = ces.db.prepare(`SELECT b.operator_id, b.client_id, b.id_bot, b.status, b.last_error, i.website_id, o.pseudo, o.name, a.base_url, a.secret
    FROM bot_operators b JOIN connector_installs i ON i.id = b.install_id JOIN connector_apps a ON a.id = i.app_id
    JOIN operators o ON o.id = b.operator_id ORDER BY b.operator_id`).all() as any[];
  const polls = ces.bots.exchanges.recent().filter((e) => e.endpoint === 'availability');
  return bots.map((b) => {
    const d = ces.bots.poller.describe(b.operator_id);
    const mine = polls.filter((p) => p.operatorId === b.operator_id).slice(-POLLS_SHOWN).reverse();
    return {
      operatorId: b.operator_id, clientId: b.client_id, websiteId: b.website_id, name: b.name, pseudo: b.pseudo, idBot: b.id_bot, status: b.status,
      setupError: b.last_error, connectorUrl: publicUrl(b.base_url),
      // The console never shows a connector secret (deviation console-secret-shown puts it in, to prove the secret check can fail).
      ...(ces.policy.console.secretsKept ? {} : { connectorSecret: b.secret }),
      available: d.available, strategies: d.strategies, lastError: d.lastError, polls: d.polls,
      lastPolls: mine.map((p) => ({ at: iso(p.at), status: p.status, ms: p.ms, failure: p.failure })),
    };
  });
}

/** Websites a visitor can chat on (those with a routing rule), for the chat page's picker. */
export function chatWebsites(ces: ServiceContext) {
  const rules = ces.db.prepare(`SELECT r.website_id, r.operator_ids, r.channels, w.label, w.url FROM routing_rules r JOIN websites w ON w.id = r.website_id ORDER BY r.client_id, r.website_id, r.created_at`).all() as any[];
  const seen = new Set<number>();
  const out: Array<{ websiteId: number; label: string; bots: Array<{ operatorId: number; pseudo: string }> }> = [];
  for (const r of rules) {
    if (seen.has(r.website_id) || !list<string>(r.channels).includes('chat')) continue;
    const bots = list<number>(r.operator_ids).map((id) => ces.db.prepare(`SELECT o.id, o.pseudo FROM operators o JOIN bot_operators b ON b.operator_id = o.id WHERE o.id = ?`).get(id) as { id: number; pseudo: string } | undefined)
      .filter((b): b is { id: number; pseudo: string } => !!b).map((b) => ({ operatorId: b.id, pseudo: b.pseudo }));
    if (!bots.length) continue;
    seen.add(r.website_id);
    out.push({ websiteId: r.website_id, label: r.label ?? r.url ?? `website ${r.website_id}`, bots });
  }
  return out;
}

/** The webhook delivery log of every subscription: state and each attempt with its status and timings; subscription URL without secrets. */
export function webhooksView(ces: ServiceContext) {
  const rows = ces.db.prepare(`SELECT d.*, s.url, s.deleted_at FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id ORDER BY d.id DESC LIMIT ?`).all(DELIVERIES_LISTED) as any[];
  const attempts = ces.db.prepare('SELECT * FROM webhook_attempts WHERE delivery = ? ORDER BY attempt');
  return rows.map((d) => {
    let body: any = null;
    try { body = JSON.parse(d.body); } catch { /* shown as null */ }
    return {
      eventId: d.event_id, eventType: d.event_type, correlationId: d.correlation_id, clientId: d.client_id, subscriptionId: d.subscription_id,
      url: publicUrl(d.url), subscriptionDeleted: d.deleted_at !== null, state: d.state, createdAt: iso(d.created_at), finishedAt: iso(d.finished_at),
      nextAttemptAt: d.state === 'pending' ? iso(d.due_at) : null, conversationId: typeof body?.conversationId === 'string' ? body.conversationId : body?.conversationId ?? null,
      payload: body,
      attempts: (attempts.all(d.id) as any[]).map((a) => ({
        attempt: a.attempt, deliveryId: a.delivery_id, startedAt: iso(a.started_at), endedAt: iso(a.ended_at),
        durationMs: a.ended_at === null ? null : a.ended_at - a.started_at, status: a.status, error: a.error,
      })),
    };
  });
}

/** A cheap fingerprint of the webhook log, so the live feed tells pages only when it changed. */
export function webhooksFingerprint(ces: ServiceContext): string {
  const a = ces.db.prepare('SELECT COUNT(*) AS n, MAX(id) AS m, COUNT(ended_at) AS e FROM webhook_attempts').get() as { n: number; m: number | null; e: number };
  const d = ces.db.prepare(`SELECT COUNT(*) AS n, MAX(id) AS m, SUM(state = 'pending') AS p FROM webhook_deliveries`).get() as { n: number; m: number | null; p: number | null };
  return `${a.n}/${a.m}/${a.e}/${d.n}/${d.m}/${d.p}`;
}
