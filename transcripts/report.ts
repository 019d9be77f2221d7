// Reports of transcripts: the terminal diff per turn, JUnit (one test per transcript), and static HTML pages (a conversation as the chat page shows it; recorded and replayed side by side).
import { esc } from '../lib/landing.js';
import { mask } from '../lib/mask.js';
import { isExpectation, isFirst, isVisitor, isWait, type Reply, type Transcript, type Turn } from './format.js';
import { describeExpected } from './expect.js';
import { describeReply, type Comparison, type Difference } from './compare.js';
import { LABEL, LEGEND, type Verdict } from '../lib/verdicts.js';
import { junitXml as checksJunit } from '../lib/junit.js';
import type { CheckResult } from '../lib/results.js';

// Our own patterns, run on values cut to VALUE_SHOWN_MAX characters (never a user's pattern).
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const PHONE = /\+?\d[\d ().-]{6,18}\d/g;
/** Longest value a report shows. */
const VALUE_SHOWN_MAX = 2_000;

/** E-mail addresses and phone numbers (collected variables are personal data) are never written to a report. */
export function maskPersonal(text: string): string {
  return text.slice(0, VALUE_SHOWN_MAX).replace(EMAIL, '[e-mail masked]').replace(PHONE, '[phone masked]');
}
const maskVars = (v: Record<string, unknown> | undefined): string => (v ? Object.entries(v).map(([k, x]) => `${k}=${maskPersonal(describeExpected(x))}`).join(', ') : '');
/** Text safe for any report: secrets known to lib/mask.ts replaced. */
const clean = (s: string) => mask(s);

export interface ReplayResult {
  file: string;
  recorded: Transcript;
  /** Today's transcript; undefined when the replay could not start (setup error of that transcript). */
  now?: Transcript;
  comparison: Comparison;
  ms: number;
}

// ---- terminal -------------------------------------------------------------------------------------------------------
function turnTitle(t: Turn | undefined, n: number): string {
  if (!t) return `turn ${n}`;
  if (isFirst(t)) return `turn ${n}  first messages`;
  if (isVisitor(t)) return `turn ${n}  visitor ${t.quickReply ? 'clicks quick reply ' : ''}"${t.visitor}"`;
  return `turn ${n}  visitor silent for ${t.wait}`;
}

/** What a difference shows: variables masked, secrets masked. */
const shown = (d: Difference, v: string | undefined) => clean(d.kind === 'variables changed' ? maskPersonal(v ?? '') : v ?? '');

/** The diff of one transcript, per turn: recorded (-) and now (+). */
export function terminalDiff(r: ReplayResult): string {
  const lines: string[] = [];
  const { differences } = r.comparison;
  const counts = (v: Verdict) => differences.filter((d) => d.verdict === v).length;
  lines.push(`${LABEL[r.comparison.verdict].padEnd(5)} ${r.file}  (${r.recorded.name}; ${differences.length ? `${differences.length} difference(s): ${counts('fail')} ${LABEL.fail}, ${counts('warn')} ${LABEL.warn}` : 'no difference'})`);
  const byTurn = new Map<number, Difference[]>();
  for (const d of differences) byTurn.set(d.turn, [...(byTurn.get(d.turn) ?? []), d]);
  for (const [n, ds] of [...byTurn].sort((a, b) => a[0] - b[0])) {
    lines.push(`  ${turnTitle(r.recorded.turns[n - 1], n)}`);
    for (const d of ds) {
      lines.push(`    ${LABEL[d.verdict]} ${d.kind}: ${clean(d.what)}`);
      if (d.recorded !== undefined) lines.push(`      - recorded: ${shown(d, d.recorded)}`);
      if (d.now !== undefined) lines.push(`      + now:      ${shown(d, d.now)}`);
    }
  }
  for (const n of r.comparison.notJudged) lines.push(`  ${LABEL['not-judged']} ${clean(n)}`);
  return lines.join('\n');
}

// ---- JUnit ----------------------------------------------------------------------------------------------------------
/** A transcript as a check of the run (summary.json, JUnit): a FAIL difference fails it; WARNs and what was not judged ride along. */
export function transcriptCheck(r: ReplayResult): CheckResult {
  const warn = r.comparison.differences.filter((d) => d.verdict === 'warn');
  return {
    title: `transcript ${r.file}`, file: r.file, project: 'replay', clauses: [], durationMs: Math.round(r.ms),
    outcome: r.comparison.verdict === 'fail' ? 'failed' : 'passed',
    ...(r.comparison.verdict === 'fail' ? { reason: terminalDiff(r) } : {}),
    ...(warn.length ? { warnings: warn.map((d) => `turn ${d.turn}: ${d.kind}: ${d.what}`) } : {}),
    ...(r.comparison.notJudged.length ? { notes: r.comparison.notJudged.map((n) => `${LABEL['not-judged']}: ${n}`) } : {}),
  };
}

/** JUnit XML (lib/junit.ts, the vendor checks' writer): one test case per transcript; FAIL is a <failure> carrying the diff. */
export function junitXml(results: ReplayResult[], suite = 'ces replay'): string {
  return checksJunit(suite, results.map(transcriptCheck), results.map((r) => r.comparison.verdict));
}

// ---- HTML -----------------------------------------------------------------------------------------------------------
const CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}main{max-width:1200px;margin:auto;padding:1rem}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}.meta{color:#57606a;font-size:.85rem}
.badge{display:inline-block;padding:0 .45em;border-radius:.3em;font-weight:600;font-size:.8rem;color:#fff}.v-pass{background:#1a7f37}.v-fail{background:#cf222e}.v-warn{background:#9a6700}.v-note,.v-not-judged{background:#57606a}
.conv{list-style:none;margin:0;padding:0}.conv li{margin:.3rem 0;display:flex;flex-direction:column}
.bubble{max-width:85%;padding:.4rem .7rem;border-radius:.8rem;background:#fff;border:1px solid #d0d7de;white-space:pre-wrap;word-break:break-word}
.visitor{align-items:flex-end}.visitor .bubble{background:#0969da;color:#fff;border-color:#0969da}.bot{align-items:flex-start}
.qr{display:flex;gap:.3rem;flex-wrap:wrap;margin-top:.2rem}.qr span{border:1px solid #0969da;color:#0969da;border-radius:1rem;padding:0 .6rem;font-size:.85rem}
.sys{align-items:center;color:#57606a;font-size:.85rem}.fail-note{color:#cf222e;font-size:.85rem}
table.side{border-collapse:collapse;width:100%;background:#fff}table.side td,table.side th{border:1px solid #d0d7de;vertical-align:top;padding:.4rem;width:42%}
table.side th:first-child,table.side td:first-child{width:6%}tr.d-fail td{background:#ffebe9}tr.d-warn td{background:#fff8c5}
.diffs{margin:.3rem 0 0;padding-left:1.1rem;font-size:.9rem}.diffs li{margin:.15rem 0}del{color:#cf222e}ins{color:#1a7f37;text-decoration:none}
@media (max-width:700px){table.side td,table.side th{display:block;width:auto}}`;

/** A verdict badge with its legend as a tooltip (the vendor checks' words, lib/verdicts.ts). */
const badge = (v: Verdict) => `<span class="badge v-${v}" title="${esc(LEGEND[v])}">${LABEL[v]}</span>`;
const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>\n`;

function payloadHtml(p: any): string {
  if (isExpectation(p)) return `<em>${esc(describeExpected(p))}</em>`;
  switch (p?.contentType) {
    case 'text': return esc(isExpectation(p.value) ? describeExpected(p.value) : String(p.value ?? ''));
    case 'card/content': return `<strong>${esc(describeExpected(p.title ?? ''))}</strong>\n${esc(describeExpected(p.text ?? ''))}`;
    case 'product-offer': return `<strong>${esc(describeExpected(p.name ?? ''))}</strong> ${esc(describeExpected(p.price ?? ''))}${p.offerPrice ? ` → ${esc(describeExpected(p.offerPrice))}` : ''}`;
    case 'file': return `file ${esc(describeExpected(p.fileName ?? ''))} (${esc(describeExpected(p.mimeType ?? ''))})`;
    case 'bundle/card': return `carousel of ${Array.isArray(p.cards) ? p.cards.length : '?'} cards: ${esc((p.cards ?? []).map((c: any) => describeExpected(c?.title ?? '')).join(', '))}`;
    case 'bundle/product-offer': return `slider of ${Array.isArray(p.offers) ? p.offers.length : '?'} offers: ${esc((p.offers ?? []).map((c: any) => describeExpected(c?.name ?? '')).join(', '))}`;
    default: return esc(JSON.stringify(p));
  }
}

function replyHtml(r: unknown): string {
  if (isExpectation(r)) return `<li class="bot"><div class="bubble"><em>${esc(describeExpected(r))}</em></div></li>`;
  const x = r as Reply;
  if (x?.type === 'message') {
    const qr = Array.isArray(x.quickReplies) ? `<div class="qr">${x.quickReplies.map((q) => `<span>${esc(typeof q === 'string' ? q : describeExpected(q))}</span>`).join('')}</div>` : isExpectation(x.quickReplies) ? `<div class="qr"><span>${esc(describeExpected(x.quickReplies))}</span></div>` : '';
    return `<li class="bot"><div class="bubble">${payloadHtml(x.payload)}</div>${qr}</li>`;
  }
  return `<li class="sys">${esc(x?.type === 'await' ? `the bot schedules the rest: ${describeReply(x)}` : x?.type === 'transfer' ? describeReply(x) : x?.type === 'close' ? 'the bot closes the conversation' : describeReply(x))}</li>`;
}

/** One turn as the chat page shows it (visitor right, bot left, service lines centred). */
export function turnHtml(t: Turn | undefined): string {
  if (!t) return '<p class="meta">not played</p>';
  const out: string[] = [];
  if (isFirst(t)) {
    out.push('<li class="sys">first messages</li>');
    out.push(...(Array.isArray(t.firstMessages) ? t.firstMessages.map(replyHtml) : [replyHtml(t.firstMessages)]));
  } else if (isVisitor(t)) {
    out.push(`<li class="visitor"><div class="bubble">${esc(t.visitor)}</div>${t.quickReply ? '<span class="meta">quick-reply click</span>' : ''}</li>`);
    out.push(...(Array.isArray(t.bot) ? t.bot.map(replyHtml) : [replyHtml(t.bot)]));
    if (t.variables) out.push(`<li class="sys">variables: ${esc(maskVars(t.variables))}</li>`);
  } else if (isWait(t)) out.push(`<li class="sys">the visitor stays silent for ${esc(t.wait)}</li>`);
  for (const e of (t as { events?: string[] }).events ?? []) out.push(`<li class="sys">${esc(e)}</li>`);
  const failure = (t as { failure?: string }).failure;
  if (failure) out.push(`<li class="fail-note">not used by the service: ${esc(failure)}</li>`);
  const ms = (t as { ms?: number }).ms;
  if (ms !== undefined) out.push(`<li class="sys">answered in ${ms} ms</li>`);
  return `<ul class="conv">${out.join('')}</ul>`;
}

const header = (t: Transcript) => `<p class="meta">connector <code>${esc(t.connector.url)}</code> · scenario <code>${esc(t.bot.idBot ?? '?')}</code> · website ${esc(t.website.id)}${t.website.routingRule ? ` (${esc(t.website.routingRule)})` : ''} · recorded ${esc(t.recorded.at)} by ${esc(t.recorded.by)} (${esc(t.recorded.tool)})</p>`;

/** A page of readable conversations (the check's and `ces record`'s report). */
export function transcriptsPage(items: Array<{ file: string; transcript: Transcript }>, title = 'Conversations'): string {
  const body = `<h1>${esc(title)}</h1><p class="meta">${items.length} conversation(s). E-mail addresses and phone numbers in variables are masked.</p>`
    + items.map(({ file, transcript }) => `<section><h2>${esc(transcript.name)}</h2><p class="meta"><code>${esc(file)}</code></p>${header(transcript)}${transcript.turns.map(turnHtml).join('')}</section>`).join('');
  return clean(page(title, body));
}

/** The replay page: per transcript, recorded and replayed turns side by side with the differences marked. */
export function replayPage(results: ReplayResult[], meta: { against: string; date: string; landing?: string }): string {
  const sections = results.map((r, i) => {
    const nowFirst = r.now?.turns.find(isFirst);
    const nowRest = r.now?.turns.filter((t) => !isFirst(t)) ?? [];
    let k = 0;
    const rows = r.recorded.turns.map((rt, idx) => {
      const nt = r.now ? (isFirst(rt) ? nowFirst : nowRest[k++]) : undefined;
      const ds = r.comparison.differences.filter((d) => d.turn === idx + 1);
      const worst: Verdict | '' = ds.some((d) => d.verdict === 'fail') ? 'fail' : ds.length ? 'warn' : '';
      const list = ds.length ? `<ul class="diffs">${ds.map((d) => `<li>${badge(d.verdict)} <strong>${esc(d.kind)}</strong>: ${esc(d.what)}${d.recorded !== undefined ? `<br><del>− ${esc(shown(d, d.recorded))}</del>` : ''}${d.now !== undefined ? `<br><ins>+ ${esc(shown(d, d.now))}</ins>` : ''}</li>`).join('')}</ul>` : '';
      return `<tr class="${worst ? `d-${worst}` : ''}" id="t${i + 1}-${idx + 1}"><th scope="row">${idx + 1}${worst ? ` ${badge(worst)}` : ''}</th><td>${turnHtml(rt)}</td><td>${r.now ? turnHtml(nt) : '<p class="meta">not replayed</p>'}${list}</td></tr>`;
    }).join('');
    const nj = r.comparison.notJudged.map((n) => `<li>${badge('not-judged')} ${esc(n)}</li>`).join('');
    return `<section id="transcript-${i + 1}"><h2>${badge(r.comparison.verdict)} ${esc(r.recorded.name)}</h2><p class="meta"><code>${esc(r.file)}</code> · ${r.comparison.differences.length} difference(s) · replayed in ${Math.round(r.ms)} ms</p>${header(r.recorded)}${nj ? `<ul class="diffs">${nj}</ul>` : ''}
<table class="side"><thead><tr><th>turn</th><th>recorded</th><th>now</th></tr></thead><tbody>${rows}</tbody></table></section>`;
  }).join('');
  const counts = (v: Verdict) => results.filter((r) => r.comparison.verdict === v).length;
  const verdict: Verdict = counts('fail') ? 'fail' : counts('warn') ? 'warn' : 'pass';
  const body = `${meta.landing ? `<p><a href="${esc(meta.landing)}">← conformance report</a></p>` : ''}<h1>${badge(verdict)} Transcript replay</h1>
<p class="meta">against ${esc(meta.against)} · ${esc(meta.date)} · ${results.length} transcript(s): ${counts('pass')} ${LABEL.pass}, ${counts('warn')} ${LABEL.warn}, ${counts('fail')} ${LABEL.fail}. E-mail addresses and phone numbers in variables are masked.</p>
<ul>${results.map((r, i) => `<li><a href="#transcript-${i + 1}">${badge(r.comparison.verdict)} ${esc(r.recorded.name)}</a> <span class="meta">${esc(r.file)}</span></li>`).join('')}</ul>${sections}`;
  return clean(page('Transcript replay', body));
}
