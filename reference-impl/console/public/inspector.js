// The live inspector: conversations and their state, the selected one's service ↔ connector exchange, bot availability as polled, webhook attempts.
import { api, el, coalesce, liveFeed, timeOf, shortId } from './common.js';

const $ = (id) => document.getElementById(id);
const state = { selected: new URLSearchParams(location.search).get('c'), conversations: [] };

const badge = (text, cls) => el('span', { class: `badge ${cls ?? text}`, text });
const entryText = (e) => {
  const p = e.payload ?? {};
  if (p.contentType === 'text') return String(p.value);
  if (p.contentType === 'event') return `[${p.value}]`;
  return `<${p.contentType}>${p.title ? ` ${p.title}` : p.name ? ` ${p.name}` : ''}`;
};

/** Labels each cell with its column header (narrow windows show rows as labelled cards). */
function labelCells(table) {
  const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent);
  for (const row of table.tBodies[0].rows) [...row.cells].forEach((c, i) => { if (c.colSpan === 1) c.dataset.label = heads[i] ?? ''; });
}

// ---------- conversations ----------
function renderList() {
  const ul = $('conversations');
  ul.replaceChildren(...state.conversations.map((c) => el('li', {},
    el('button', {
      type: 'button', 'aria-pressed': String(c.conversationId === state.selected), 'data-conversation-id': c.conversationId,
      onclick: () => select(c.conversationId),
    },
    el('code', { text: shortId(c.conversationId) }),
    badge(c.state, c.state),
    el('span', { class: 'muted', text: `${c.channel} · ${c.phase}${c.botOperatorId ? ` · bot ${c.botOperatorId}` : c.operatorId ? ` · operator ${c.operatorId}` : ''}` }),
    el('span', { class: 'muted', text: `${c.messages} msg${c.failures ? '' : ''}` }),
    c.failures ? badge(`${c.failures} failure${c.failures > 1 ? 's' : ''}`, 'failed') : null,
    el('time', { class: 'muted', datetime: c.createdAt, text: timeOf(c.createdAt) })))));
  if (!state.conversations.length) ul.append(el('li', { class: 'muted', text: 'No conversation yet: start one in the chat window.' }));
}

const refreshList = coalesce(async () => {
  state.conversations = (await api('GET', '/console/api/conversations')).conversations;
  renderList();
});

function exchangeRows(ex) {
  const path = (() => { try { const u = new URL(ex.url); return `${u.pathname}${u.search}`; } catch { return ex.url; } })();
  const failed = !!ex.failure;
  const row = el('tr', { class: failed ? 'failed' : '', 'data-endpoint': ex.endpoint },
    el('td', { text: timeOf(ex.at, true) }),
    el('td', { text: `${ex.endpoint}${roleOf(ex) ? ` (${roleOf(ex)} message)` : ''}` }),
    el('td', {}, el('details', {},
      el('summary', {}, `${ex.method} ${path}`),
      ex.requestBody ? el('div', {}, el('strong', { text: 'Request body' }), el('pre', { text: pretty(ex.requestBody) })) : el('p', { class: 'muted', text: 'no request body' }),
      ex.responseBody !== null ? el('div', {}, el('strong', { text: 'Reply body' }), el('pre', { text: pretty(ex.responseBody) })) : el('p', { class: 'muted', text: 'no reply' }))),
    el('td', {}, ex.status === null ? badge('none', 'bad') : badge(String(ex.status), ex.status >= 200 && ex.status < 300 ? 'ok' : 'bad')),
    el('td', { class: 'num', text: String(ex.ms) }),
    el('td', { class: failed ? 'failure' : '', text: ex.failure ?? '' }));
  return row;
}

/** Endpoint 7 carries the author's role: visitor messages get replies, operator (bot) messages must not. */
function roleOf(ex) {
  try { return JSON.parse(ex.requestBody ?? 'null')?.message?.author?.role ?? ''; } catch { return ''; }
}

function pretty(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

const refreshDetail = coalesce(async () => {
  if (!state.selected) return;
  let d;
  try { d = await api('GET', `/console/api/conversations/${encodeURIComponent(state.selected)}`); } catch (e) {
    $('detail-empty').hidden = false;
    $('detail-empty').textContent = e.status === 404 ? `No conversation ${state.selected}.` : e.message;
    $('detail-body').hidden = true;
    return;
  }
  $('detail-empty').hidden = true;
  $('detail-body').hidden = false;
  $('detail-title').textContent = `Conversation ${shortId(d.conversationId)}`;
  $('detail-meta').replaceChildren(...[
    el('span', {}, 'state ', badge(d.state, d.state), ` · phase ${d.phase}${d.closeReason ? ` (closed by ${d.closeReason})` : ''} · channel ${d.channel} · website ${d.websiteId}`),
    el('span', { text: ` · ${d.botOperatorId ? `bot operator ${d.botOperatorId}` : `operator ${d.operatorId ?? 'none'}`}` }),
    d.pendingTimers.length ? el('span', { text: ` · pending: ${d.pendingTimers.map((t) => `${t.kind} at ${timeOf(t.due)}`).join(', ')}` }) : null,
    d.variables.length ? el('span', { text: ` · variables: ${d.variables.map((v) => `${v.key}=${v.value}`).join(', ')}` }) : null,
    ' · ', el('a', { href: `/console/chat#c=${encodeURIComponent(d.conversationId)}`, text: 'open in the chat window' })].filter((x) => x !== null));
  $('detail-transcript').replaceChildren(...d.transcript.map((e) => el('li', { 'data-role': e.role }, el('strong', { text: `${e.role}: ` }), entryText(e).slice(0, 200), el('span', { class: 'muted', text: ` ${timeOf(e.at, true)}` }))));
  $('detail-failures').replaceChildren(...(d.failures.length ? d.failures.map((f) => el('li', { class: 'failure', 'data-kind': f.kind }, badge(f.kind, 'failed'), ` ${f.endpoint}: ${f.reason} `, el('span', { class: 'muted', text: timeOf(f.at, true) })))
    : [el('li', { class: 'muted', text: 'none' })]));
  $('exchanges').tBodies[0].replaceChildren(...d.exchanges.map(exchangeRows));
  labelCells($('exchanges'));
});

function select(id) {
  state.selected = id;
  history.replaceState(null, '', `?c=${encodeURIComponent(id)}`);
  renderList();
  refreshDetail();
}

// ---------- bots ----------
const refreshBots = coalesce(async () => {
  const { bots } = await api('GET', '/console/api/bots');
  $('bots').tBodies[0].replaceChildren(...bots.map((b) => el('tr', { 'data-operator-id': b.operatorId },
    el('td', {}, `${b.pseudo} (${b.operatorId})`, el('br'), el('span', { class: 'muted', text: `client ${b.clientId}, website ${b.websiteId}` })),
    el('td', { text: b.idBot ?? '—' }),
    el('td', {}, badge(b.status, b.status === 'ready' ? 'ok' : b.status === 'failed' ? 'bad' : 'pending'), b.setupError ? el('div', { class: 'muted', text: b.setupError }) : null),
    el('td', { class: 'availability' }, badge(b.available ? 'available' : 'unavailable', b.available ? 'ok' : 'bad'), b.lastError ? el('div', { class: 'muted', text: b.lastError }) : null),
    el('td', { class: 'num polls', text: String(b.polls) }),
    el('td', {}, el('ul', { class: 'compact' }, b.lastPolls.slice(0, 3).map((p) => el('li', { text: `${timeOf(p.at, true)} · ${p.status ?? 'no answer'} · ${p.ms} ms${p.failure ? ` · ${p.failure}` : ''}` })))),
    el('td', { class: 'muted', text: b.connectorUrl }))));
  labelCells($('bots'));
});

// ---------- webhooks ----------
const refreshHooks = coalesce(async () => {
  const { deliveries } = await api('GET', '/console/api/webhooks');
  const body = $('webhooks').tBodies[0];
  body.replaceChildren(...deliveries.map((d) => el('tr', { 'data-correlation-id': d.correlationId, 'data-state': d.state },
    el('td', { text: timeOf(d.createdAt, true) }),
    el('td', {}, el('code', { text: d.eventType }), el('div', { class: 'muted', text: `client ${d.clientId}` })),
    el('td', { class: 'muted', text: d.payload?.conversationId ? `conversation ${d.payload.conversationId}` : d.payload?.visitorId ? `visitor ${d.payload.visitorId}` : d.payload?.userId ? `user ${d.payload.userId}` : '' }),
    el('td', { class: 'muted', text: d.url }),
    el('td', {}, badge(d.state, d.state === 'delivered' ? 'ok' : d.state === 'dead' ? 'bad' : 'pending'), d.nextAttemptAt ? el('div', { class: 'muted', text: `next attempt ${timeOf(d.nextAttemptAt)}` }) : null),
    el('td', {}, el('ol', { class: 'compact attempts' }, d.attempts.map((a) => el('li', { 'data-status': a.status ?? '' },
      `#${a.attempt} `, a.status === null ? badge(a.error ? 'failed' : 'in flight', a.error ? 'bad' : 'pending') : badge(String(a.status), a.status >= 200 && a.status < 300 ? 'ok' : 'bad'),
      ` ${timeOf(a.startedAt, true)}${a.durationMs !== null ? ` · ${a.durationMs} ms` : ''}${a.error ? ` · ${a.error}` : ''}`)))))));
  labelCells($('webhooks'));
  if (!deliveries.length) body.append(el('tr', {}, el('td', { colspan: '6', class: 'muted', text: 'No delivery yet: subscribe a callback URL through the platform API.' })));
});

function main() {
  liveFeed('', {
    hello: () => { refreshList(); refreshDetail(); refreshBots(); refreshHooks(); },
    conversation: (d) => { refreshList(); if (d.conversationId === state.selected) refreshDetail(); },
    exchange: (d) => { if (d.conversationId === state.selected) refreshDetail(); },
    bots: refreshBots,
    webhooks: refreshHooks,
  }, (s) => { $('feed').textContent = s; });
  document.body.dataset.ready = 'true';
}

main();
