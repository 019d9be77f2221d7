// Evidence pictures as self-contained inline SVG: service<->connector sequence diagrams and webhook attempt timelines.
import { LIMITS } from './limits.js';

export type Party = 'visitor' | 'service' | 'connector';
/** Same shape as suites/evidence.ts SequenceCall (kept structural so lib/ does not import suites/). */
export interface SequenceCallData { from: Party; to: Party; label: string; ms?: number; at: number; note?: string; failed?: boolean }
export interface TimelineAttemptData { attempt: number; atMs: number; status: number | string; deliveryId?: string; correlationId?: string }
export interface SequenceData { kind: 'sequence'; title: string; calls: SequenceCallData[] }
export interface TimelineData { kind: 'timeline'; title: string; attempts: TimelineAttemptData[] }

const PARTIES: Party[] = ['visitor', 'service', 'connector'];
const W = 760;
const FONT = 'font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif"';

export const escXml = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Cuts a text to n characters with an ellipsis; the full text stays in the element's <title>. */
const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** Breaks a text into at most `lines` lines of about `width` characters. */
function wrap(s: string, width: number, lines: number): string[] {
  const words = s.replace(/\s+/g, ' ').trim().split(' ');
  const out: string[] = [];
  let cur = '';
  for (const w of words) {
    if ((cur + ' ' + w).trim().length > width && cur) { out.push(cur); cur = w; } else cur = (cur + ' ' + w).trim();
  }
  if (cur) out.push(cur);
  if (out.length > lines) { out.length = lines; out[lines - 1] = cut(out[lines - 1]! + ' …', width); }
  return out.map((l) => cut(l, width + 2));
}

const seconds = (ms: number): string => (Math.abs(ms) >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

/** A sequence diagram: one lifeline per party, one arrow per call with its start time, measured duration and reply. */
export function sequenceSvg(data: SequenceData): string {
  const calls = Array.isArray(data.calls) ? data.calls : [];
  const used = PARTIES.filter((p) => calls.some((c) => c.from === p || c.to === p));
  const parties = used.length >= 2 ? used : PARTIES.filter((p) => p !== 'visitor' || used.includes('visitor'));
  const left = 120;
  const right = W - 70;
  const xOf = (p: Party) => (parties.length === 1 ? (left + right) / 2 : left + (parties.indexOf(p) * (right - left)) / (parties.length - 1));
  const rows = calls.map((c) => ({ c, note: c.note ? wrap(c.note, 64, 2) : [] }));
  const heights = rows.map((r) => 46 + r.note.length * 15);
  const top = 64;
  const height = top + heights.reduce((a, b) => a + b, 0) + 24;
  const parts: string[] = [];
  parts.push(`<rect width="${W}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="12" y="20" font-size="14" font-weight="600" fill="#1b1f24">${escXml(cut(data.title ?? '', 90))}</text>`);
  parts.push(`<text x="12" y="${top - 14}" font-size="11" fill="#57606a">time</text>`);
  for (const p of parties) {
    const x = xOf(p);
    parts.push(`<rect x="${x - 52}" y="30" width="104" height="24" rx="4" fill="#f6f8fa" stroke="#8c959f"/>`);
    parts.push(`<text x="${x}" y="46" font-size="12" text-anchor="middle" fill="#1b1f24">${escXml(p)}</text>`);
    parts.push(`<line x1="${x}" y1="54" x2="${x}" y2="${height - 10}" stroke="#8c959f" stroke-dasharray="4 4"/>`);
  }
  let y = top;
  rows.forEach(({ c, note }, i) => {
    const from = parties.includes(c.from) ? c.from : parties[0]!;
    const to = parties.includes(c.to) ? c.to : parties[parties.length - 1]!;
    const x1 = xOf(from);
    const x2 = xOf(to);
    const colour = c.failed ? '#cf222e' : '#0969da';
    const arrowY = y + 22;
    const label = `${c.failed ? '✗ ' : ''}${c.label ?? ''}`;
    parts.push(`<g data-call="${i}"><title>${escXml(`${from} → ${to}: ${c.label ?? ''}${c.ms !== undefined ? ` (${c.ms} ms)` : ''}${c.note ? ` — ${c.note}` : ''}`)}</title>`);
    parts.push(`<text x="12" y="${arrowY + 4}" font-size="11" fill="#57606a">+${escXml(seconds(Number(c.at) || 0))}</text>`);
    if (x1 === x2) {
      parts.push(`<path d="M${x1} ${arrowY - 8} h40 v16 h-36" fill="none" stroke="${colour}" stroke-width="1.5"${c.failed ? ' stroke-dasharray="6 3"' : ''}/>`);
      parts.push(`<path d="M${x1 + 4} ${arrowY + 8} l8 -4 v8 z" fill="${colour}"/>`);
      parts.push(`<text x="${x1 + 46}" y="${arrowY}" font-size="12" fill="${colour}">${escXml(cut(label, 60))}</text>`);
    } else {
      const dir = x2 > x1 ? 1 : -1;
      parts.push(`<line x1="${x1}" y1="${arrowY}" x2="${x2 - dir * 8}" y2="${arrowY}" stroke="${colour}" stroke-width="1.5"${c.failed ? ' stroke-dasharray="6 3"' : ''}/>`);
      parts.push(`<path d="M${x2} ${arrowY} l${-dir * 9} -5 v10 z" fill="${colour}"/>`);
      const span = Math.abs(x2 - x1);
      parts.push(`<text x="${(x1 + x2) / 2}" y="${arrowY - 6}" font-size="12" text-anchor="middle" fill="${colour}">${escXml(cut(label, Math.max(18, Math.floor(span / 6.6))))}</text>`);
      if (c.ms !== undefined) parts.push(`<text x="${x2 + (dir > 0 ? 6 : -6)}" y="${arrowY + 14}" font-size="11" text-anchor="${dir > 0 ? 'start' : 'end'}" fill="#57606a">${escXml(seconds(Number(c.ms)))}</text>`);
    }
    note.forEach((line, j) => {
      const x = Math.min(x1, x2) + 6;
      parts.push(`<text x="${x}" y="${arrowY + 18 + j * 15}" font-size="11" font-style="italic" fill="#1b1f24">${j === 0 ? '↳ ' : '  '}${escXml(line)}</text>`);
    });
    parts.push('</g>');
    y += heights[i]!;
  });
  if (!calls.length) parts.push(`<text x="${W / 2}" y="${top + 14}" font-size="12" text-anchor="middle" fill="#57606a">no call recorded</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" class="ces-sequence" role="img" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" ${FONT}><title>${escXml(`Sequence: ${data.title ?? ''}`)}</title>${parts.join('')}</svg>`;
}

/** Expected attempt times of a webhook delivery: the first at 0, then each retry delay after the previous attempt (G4). */
export function expectedAttemptTimes(): number[] {
  const out = [0];
  for (const d of LIMITS.webhookRetryDelaysMs) out.push(out[out.length - 1]! + d);
  return out;
}

const ok = (status: number | string) => typeof status === 'number' ? status >= 200 && status < 300 : /^2\d\d$/.test(String(status));

/** A timeline of webhook delivery attempts on a time axis, with the expected schedule (first, +10 s, +20 s after that) marked. */
export function timelineSvg(data: TimelineData): string {
  const attempts = (Array.isArray(data.attempts) ? data.attempts : []).slice().sort((a, b) => a.atMs - b.atMs);
  const expected = expectedAttemptTimes();
  const maxT = Math.max(...attempts.map((a) => Number(a.atMs) || 0), ...expected) * 1.08 || 1;
  const left = 40;
  const right = W - 40;
  const xOf = (t: number) => left + (Math.max(0, t) / maxT) * (right - left);
  const axisY = 120;
  const height = 190;
  const parts: string[] = [];
  parts.push(`<rect width="${W}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="12" y="20" font-size="14" font-weight="600" fill="#1b1f24">${escXml(cut(data.title ?? '', 90))}</text>`);
  const names = ['first', ...LIMITS.webhookRetryDelaysMs.map((d) => `+${d / 1000} s`)];
  expected.forEach((t, i) => {
    const x = xOf(t);
    parts.push(`<line x1="${x}" y1="44" x2="${x}" y2="${axisY + 8}" stroke="#8c959f" stroke-dasharray="3 4"/>`);
    parts.push(`<text x="${x}" y="40" font-size="11" text-anchor="middle" fill="#57606a">expected ${escXml(names[i] ?? '')}</text>`);
  });
  parts.push(`<line x1="${left}" y1="${axisY}" x2="${right}" y2="${axisY}" stroke="#1b1f24"/>`);
  const step = maxT > 60_000 ? 10_000 : 5_000;
  for (let t = 0; t <= maxT; t += step) {
    const x = xOf(t);
    parts.push(`<line x1="${x}" y1="${axisY}" x2="${x}" y2="${axisY + 5}" stroke="#1b1f24"/><text x="${x}" y="${axisY + 18}" font-size="10" text-anchor="middle" fill="#57606a">${t / 1000} s</text>`);
  }
  attempts.forEach((a, i) => {
    const x = xOf(Number(a.atMs) || 0);
    const colour = ok(a.status) ? '#1a7f37' : '#cf222e';
    const prev = attempts[i - 1];
    const delta = prev ? ` (+${seconds(a.atMs - prev.atMs)})` : '';
    const labelY = i % 2 === 0 ? axisY - 36 : axisY - 58;
    parts.push(`<g data-attempt="${escXml(a.attempt)}"><title>${escXml(`attempt ${a.attempt} at ${seconds(a.atMs)}${delta}: ${a.status}${a.deliveryId ? `, delivery ${a.deliveryId}` : ''}${a.correlationId ? `, correlation ${a.correlationId}` : ''}`)}</title>`);
    parts.push(`<line x1="${x}" y1="${labelY + 4}" x2="${x}" y2="${axisY - 8}" stroke="${colour}"/>`);
    parts.push(`<circle cx="${x}" cy="${axisY}" r="7" fill="${colour}"/>`);
    parts.push(`<text x="${x}" y="${labelY}" font-size="12" text-anchor="middle" fill="${colour}">#${escXml(a.attempt)} ${escXml(a.status)}</text>`);
    parts.push(`<text x="${x}" y="${axisY + 36 + (i % 2) * 14}" font-size="11" text-anchor="middle" fill="#1b1f24">${escXml(seconds(a.atMs))}${escXml(delta)}</text></g>`);
  });
  if (!attempts.length) parts.push(`<text x="${W / 2}" y="${axisY - 30}" font-size="12" text-anchor="middle" fill="#cf222e">no attempt recorded</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" class="ces-timeline" role="img" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" ${FONT}><title>${escXml(`Timeline: ${data.title ?? ''}`)}</title>${parts.join('')}</svg>`;
}

/** Renders an evidence attachment's JSON (sequence or timeline) as SVG; undefined when it is neither. */
export function evidenceSvg(json: unknown): string | undefined {
  const d = json as { kind?: string };
  if (d?.kind === 'sequence') return sequenceSvg(d as SequenceData);
  if (d?.kind === 'timeline') return timelineSvg(d as TimelineData);
  return undefined;
}
