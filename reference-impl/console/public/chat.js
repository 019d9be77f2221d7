// The visitor chat window: starts and drives a conversation through the console's chat routes (the simulation API's, loopback only), renders the bot's payloads as the spec describes, live by SSE.
import { api, el, coalesce, liveFeed, timeOf } from './common.js';
import { renderMarkdown, safeUrl } from './markdown.js';

const $ = (id) => document.getElementById(id);
const state = { config: null, id: null, view: null, rendered: new Map(), feed: null, scheduledShown: null };

const SYSTEM_TEXT = {
  TRANSFER_REQUESTED: 'Transfer requested: waiting for an operator to take the conversation.',
  TRANSFERRED: 'The conversation was transferred to an operator.',
  TRANSFER_TIMEOUT: 'Nobody took the conversation in time: the bot continues.',
  BOT_CHAT_CLOSE: 'The bot closed the conversation.',
  OPERATOR_CHAT_CLOSE: 'An operator closed the conversation.',
  INACTIVITY_CLOSE: 'The conversation was closed after 5 minutes of inactivity.',
};

// ---------- payload rendering (spec "Bot connector objects") ----------
function image(img, cls = 'media') {
  const src = safeUrl(img?.url ?? '');
  if (!src) return null;
  // The size comes from the service (the spec's 240x120); inline, so no style sheet can change it.
  const { imageWidth, imageHeight } = state.config.limits;
  return el('img', { class: cls, src, alt: img.description ?? '', width: imageWidth, height: imageHeight, style: `width: ${imageWidth}px; height: ${imageHeight}px`, loading: 'lazy' });
}

function actions(list) {
  const links = (list ?? []).map((a) => {
    const href = a?.type === 'LINK' ? safeUrl(a.url ?? '') : null;
    return href ? el('a', { class: 'action', href, target: '_blank', rel: 'noopener noreferrer', text: a.name ?? a.url }) : null;
  }).filter(Boolean);
  return links.length ? el('div', { class: 'actions' }, links) : null;
}

function card(p) {
  return el('article', { class: 'card', 'data-content-type': 'card/content' },
    image(p.image), el('div', { class: 'card-body' }, p.title ? el('h3', { class: 'card-title', text: p.title }) : null, p.text ? el('p', { text: p.text }) : null, actions(p.actions)));
}

function offer(p) {
  const status = p.availability?.status;
  return el('article', { class: 'card offer', 'data-content-type': 'product-offer' },
    image(p.image),
    el('div', { class: 'card-body' },
      el('h3', { class: 'card-title', text: p.name ?? '' }),
      el('p', { class: 'prices' },
        p.offerPrice ? el('del', { class: 'price', 'aria-label': `price ${p.price}`, text: p.price }) : el('span', { class: 'price', text: p.price }),
        p.offerPrice ? el('strong', { class: 'offer-price', 'aria-label': `offer price ${p.offerPrice}`, text: p.offerPrice }) : null),
      p.description ? el('p', { text: p.description }) : null,
      status ? el('p', { class: `availability ${status === 'AVAILABLE' ? 'ok' : 'no'}`, text: status === 'AVAILABLE' ? 'Available' : status === 'UNAVAILABLE' ? 'Unavailable' : status }) : null,
      actions(p.actions)));
}

function file(p) {
  const href = safeUrl(p.url ?? '');
  const isImage = /^image\//.test(p.mimeType ?? '');
  return el('div', { class: 'file', 'data-content-type': 'file' },
    isImage && href ? image({ url: href, description: p.fileName }, 'media preview') : null,
    href ? el('a', { class: 'download', href, download: p.fileName ?? '', target: '_blank', rel: 'noopener noreferrer' }, `Download ${p.fileName ?? 'file'}`, el('span', { class: 'mime', text: ` (${p.mimeType})` }))
      : el('span', { text: p.fileName ?? 'file' }));
}

/** A row of items with previous/next buttons: a carousel (several visible, scrolls) or a slider (one at a time). */
function strip(kind, items, render) {
  const label = kind === 'carousel' ? 'Carousel' : 'Slider';
  const track = el('div', { class: `track ${kind}-track`, tabindex: '0', 'aria-label': `${label} of ${items.length}` }, items.map((it, i) => {
    const slide = render(it);
    slide.setAttribute('aria-roledescription', 'slide');
    slide.setAttribute('aria-label', `${i + 1} of ${items.length}`);
    return slide;
  }));
  const pos = el('span', { class: 'position', 'aria-live': 'polite' });
  let index = 0;
  const show = (i) => {
    index = Math.max(0, Math.min(items.length - 1, i));
    const slide = track.children[index];
    if (slide) track.scrollTo({ left: slide.offsetLeft - track.offsetLeft, behavior: 'smooth' });
    pos.textContent = `${index + 1} / ${items.length}`;
    prev.disabled = index === 0;
    next.disabled = index === items.length - 1;
  };
  const prev = el('button', { type: 'button', class: 'nav prev', 'aria-label': `Previous ${kind === 'carousel' ? 'card' : 'offer'}`, onclick: () => show(index - 1), text: '‹' });
  const next = el('button', { type: 'button', class: 'nav next', 'aria-label': `Next ${kind === 'carousel' ? 'card' : 'offer'}`, onclick: () => show(index + 1), text: '›' });
  track.addEventListener('keydown', (e) => { if (e.key === 'ArrowRight') { show(index + 1); e.preventDefault(); } if (e.key === 'ArrowLeft') { show(index - 1); e.preventDefault(); } });
  const box = el('section', { class: `strip ${kind}`, 'aria-roledescription': kind, 'aria-label': label }, track, el('div', { class: 'strip-nav' }, prev, pos, next));
  queueMicrotask(() => show(0));
  return box;
}

function payloadNode(p, messageId) {
  switch (p?.contentType) {
    case 'text': {
      const div = el('div', { class: 'text md', 'data-content-type': 'text' });
      // The console never injects bot text as HTML; this deviation does, to prove the escaping check can fail.
      div.innerHTML = state.config.flags.rawHtml ? String(p.value) : renderMarkdown(p.value ?? '', `m-${messageId}`);
      return div;
    }
    case 'card/content': return card(p);
    case 'product-offer': return offer(p);
    case 'file': return file(p);
    case 'bundle/card': return el('div', { 'data-content-type': 'bundle/card' }, strip(state.config.strips['bundle/card'], p.cards ?? [], card));
    case 'bundle/product-offer': return el('div', { 'data-content-type': 'bundle/product-offer' }, strip(state.config.strips['bundle/product-offer'], p.offers ?? [], offer));
    default: {
      const pre = el('pre', { class: 'unknown', 'data-content-type': p?.contentType ?? 'unknown' });
      pre.textContent = JSON.stringify(p, null, 2);
      return pre;
    }
  }
}

function quickReplies(entry) {
  const qrs = entry.quickReplies ?? [];
  if (!qrs.length) return null;
  return el('div', { class: 'quick-replies', role: 'group', 'aria-label': 'Quick replies' }, qrs.map((q) =>
    el('button', { type: 'button', class: 'quick-reply', 'data-quick-reply': q.idQuickReply, text: q.value,
      // The visitor's answer to a quick reply is its text.
      onclick: () => send(state.config.flags.quickReplySendsId ? q.idQuickReply : q.value) })));
}

function entryNode(e) {
  const pseudo = state.config.websites.flatMap((w) => w.bots).find((b) => b.operatorId === e.operatorId)?.pseudo;
  const who = e.role === 'bot' ? `${pseudo ?? 'Bot'} (bot)` : e.role === 'operator' ? `Operator ${e.operatorId ?? ''}`.trim() : e.role === 'visitor' ? 'You' : 'System';
  if (e.role === 'system') {
    const key = e.payload?.value;
    return el('li', { class: 'msg system', 'data-role': 'system', 'data-event': key },
      el('p', { class: 'system-line', text: SYSTEM_TEXT[key] ?? String(key ?? 'event') }), el('time', { datetime: e.at, text: timeOf(e.at) }));
  }
  return el('li', { class: `msg ${e.role}`, 'data-role': e.role, 'data-message-id': e.messageId, 'data-content-type': e.payload?.contentType ?? '' },
    el('span', { class: 'who', text: who }),
    el('div', { class: 'bubble' }, payloadNode(e.payload, e.messageId)),
    quickReplies(e),
    el('time', { datetime: e.at, text: timeOf(e.at) }));
}

// ---------- conversation ----------
function render(view) {
  const list = $('transcript');
  for (const e of view.transcript) {
    const key = e.messageId ?? `${e.role}-${e.at}-${JSON.stringify(e.payload)}`;
    if (state.rendered.has(key)) continue;
    const node = entryNode(e);
    state.rendered.set(key, node);
    list.append(node);
    node.scrollIntoView({ block: 'nearest' });
  }
  // Developer notes: what the service did not show the visitor (connector failures, no bot), so a connector's author sees it here too.
  for (const f of view.failures ?? []) {
    const key = `failure-${f.at}-${f.kind}-${f.endpoint}`;
    if (state.rendered.has(key)) continue;
    const node = el('li', { class: 'msg note', 'data-role': 'note', 'data-kind': f.kind },
      el('p', { class: 'note-line' }, el('strong', { text: 'Service note (not shown to a visitor): ' }), f.reason, ' · ', el('a', { href: `/console/inspector?c=${encodeURIComponent(view.conversationId)}`, text: 'details' })));
    state.rendered.set(key, node);
    list.append(node);
  }
  if (view.botOperatorId === null && view.channel === 'chat' && !state.rendered.has('no-bot')) {
    const node = el('li', { class: 'msg note', 'data-role': 'note', 'data-kind': 'no-bot' },
      el('p', { class: 'note-line' }, el('strong', { text: 'Service note: ' }), 'no bot took this conversation (no ready and available bot on this website\'s routing rule); it went to a human operator. ',
        el('a', { href: '/console/inspector', text: 'See bot availability' })));
    state.rendered.set('no-bot', node);
    list.prepend(node);
  }
  // Quick replies answer the latest question only: disabled once the visitor has spoken after it or the conversation ended.
  const lastVisitor = view.transcript.map((e) => e.role).lastIndexOf('visitor');
  view.transcript.forEach((e, i) => {
    if (!e.quickReplies?.length) return;
    const node = state.rendered.get(e.messageId);
    for (const b of node?.querySelectorAll('button.quick-reply') ?? []) b.disabled = i < lastVisitor || view.state === 'closed';
  });
  renderScheduled(view);
  const closed = view.state === 'closed';
  $('message').disabled = closed;
  $('send').disabled = closed;
  $('conversation-state').textContent = closed ? 'closed' : view.phase === 'transferring' ? 'started (transfer pending)' : view.phase === 'human' ? 'started (with an operator)' : 'started';
  $('closed-note').hidden = !closed;
}

/** A scheduled (await) bot message announces itself until it is published, or disappears when the visitor speaks first. */
function renderScheduled(view) {
  const box = $('scheduled');
  const pending = (view.pendingTimers ?? []).filter((t) => t.kind === 'replies');
  if (state.config.flags.scheduledKept && !pending.length && state.scheduledShown && view.state !== 'closed') return;
  state.scheduledShown = pending[0]?.due ?? null;
  box.hidden = !pending.length;
  box.textContent = pending.length ? `The bot is typing… (scheduled message due at ${timeOf(pending[0].due)})` : '';
}

const refresh = coalesce(async () => {
  if (!state.id) return;
  const view = await api('GET', `/console/api/chat/conversations/${encodeURIComponent(state.id)}`);
  state.view = view;
  render(view);
});

function follow(id) {
  state.id = id;
  state.rendered.clear();
  state.scheduledShown = null;
  $('transcript').replaceChildren();
  $('chat').hidden = false;
  $('start-form').hidden = true;
  $('conversation-id').textContent = id;
  $('inspect').href = `/console/inspector?c=${encodeURIComponent(id)}`;
  // The conversation as a transcript file (the format ces record writes and ces replay plays).
  $('save-transcript').href = `/console/api/conversations/${encodeURIComponent(id)}/transcript`;
  history.replaceState(null, '', `#c=${encodeURIComponent(id)}`);
  state.feed?.close();
  state.feed = liveFeed(`conversation=${encodeURIComponent(id)}`, { hello: refresh, conversation: refresh, exchange: refresh }, (s) => { $('feed').textContent = s; });
  refresh();
}

function showError(msg) {
  const box = $('error');
  box.textContent = msg;
  box.hidden = !msg;
}

async function send(text) {
  if (!state.id || !text) return;
  showError('');
  try {
    await api('POST', `/console/api/chat/conversations/${encodeURIComponent(state.id)}/visitor-messages`, { text });
  } catch (e) {
    showError(e.status === 409 ? 'The conversation is closed: start a new one.' : `Not sent: ${e.message}`);
  }
  refresh();
}

async function start(text, websiteId) {
  showError('');
  try {
    const res = await api('POST', '/console/api/chat/conversations', { channel: 'chat', text, ...(websiteId ? { websiteId: Number(websiteId) } : {}) });
    follow(res.conversationId);
    $('message').focus();
  } catch (e) {
    showError(`Could not start: ${e.message}`);
  }
}

async function main() {
  state.config = await api('GET', '/console/api/config');
  const select = $('website');
  for (const w of state.config.websites) select.append(el('option', { value: w.websiteId, text: `${w.label} (bot: ${w.bots.map((b) => b.pseudo).join(', ')})` }));
  if (!state.config.websites.length) select.append(el('option', { value: '', text: 'default website' }));
  $('start-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('first-message').value.trim();
    if (!t) { showError('Write a first message.'); $('first-message').focus(); return; }
    $('first-message').value = '';
    start(t, select.value);
  });
  $('composer').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('message').value.trim();
    if (!t) return;
    $('message').value = '';
    send(t);
  });
  $('new-conversation').addEventListener('click', () => {
    state.feed?.close();
    state.id = null;
    $('chat').hidden = true;
    $('conversation-id').textContent = '';
    $('transcript').replaceChildren();
    $('scheduled').hidden = true;
    $('start-form').hidden = false;
    history.replaceState(null, '', location.pathname);
    $('first-message').focus();
  });
  const m = /#c=([0-9a-f-]{36})/i.exec(location.hash);
  if (m) follow(m[1]);
  document.body.dataset.ready = 'true';
}

main().catch((e) => showError(`The console could not start: ${e.message}`));
