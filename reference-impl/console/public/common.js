// Helpers both console pages share: JSON calls, element building, the live feed (SSE) with coalesced refreshes, time formatting.

/** GET or POST JSON; throws an Error carrying the status and the server's message. */
export async function api(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const text = await res.text();
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  if (!res.ok) {
    const err = new Error(json?.message ?? `${method} ${url}: HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return json;
}

/** Creates an element: attributes (`class`, `text`, data-*, aria-*, on* handlers) and children (nodes or strings). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}

/** Runs `fn` once for any number of calls made while it runs or within `delayMs` (refresh storms from the live feed). */
export function coalesce(fn, delayMs = 50) {
  let timer = null;
  let running = false;
  let again = false;
  const run = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = true;
    // A failed refresh (the page navigating away, the service restarting) is retried on the next event: a warning, not an error.
    try { await fn(); } catch (e) { console.warn(e); } finally {
      running = false;
      if (again) { again = false; schedule(); }
    }
  };
  const schedule = () => { if (!timer) timer = setTimeout(run, delayMs); };
  return schedule;
}

/** Subscribes to the console's live feed; `handlers` by event name. The browser reconnects by itself. */
export function liveFeed(query, handlers, onState) {
  const es = new EventSource(`/console/api/events${query ? `?${query}` : ''}`);
  for (const [name, fn] of Object.entries(handlers)) es.addEventListener(name, (ev) => fn(JSON.parse(ev.data || '{}')));
  es.onopen = () => onState?.('live');
  es.onerror = () => onState?.(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return es;
}

/** Time of day of an ISO date (the service clock), with milliseconds when asked. */
export function timeOf(isoDate, ms = false) {
  if (!isoDate) return '';
  const d = new Date(isoDate);
  const t = d.toISOString().slice(11, ms ? 23 : 19);
  return `${t} UTC`;
}

export const shortId = (uuid) => String(uuid ?? '').slice(0, 8);
