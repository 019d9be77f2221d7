// Markdown of bot text values as the spec's table says (Supported and Partial rows; Not supported stays plain text), escaped: never raw HTML from bot text.

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** Only web and mail links leave the page; anything else (javascript:, data:, anchors) is not a link. */
export function safeUrl(url) {
  const u = String(url).trim();
  return /^(https?:\/\/|mailto:)/i.test(u) ? u : null;
}

const link = (href, text) => `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
const ESCAPABLE = '\\`*_{}[]()#+-.!|~<>';

/**
 * Inline features: backslash escapes, inline code, bold italic, bold, italic, strikethrough, links (no hover description),
 * images (shown as a link), quick links and e-mail autolinks (<...>), footnote references. Links to an anchor stay plain text.
 */
let calls = 0;
export function renderInline(src, ctx = { id: 'm', notes: [] }) {
  const slots = [];
  // Placeholders carry the call's number, so a nested call (link text) never expands another call's slots.
  const call = ++calls;
  const hold = (html) => `\u0000${call}:${slots.push(html) - 1}\u0000`;
  let s = String(src);
  // Escapes and code first, so their content is never formatted.
  s = s.replace(/\\([\\`*_{}[\]()#+\-.!|~<>])/g, (_m, c) => hold(escapeHtml(c)));
  s = s.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _t, code) => hold(`<code>${escapeHtml(code.trim())}</code>`));
  // Images: a link to the picture, labelled with its alt text.
  s = s.replace(/!\[([^\]]*)\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g, (m, alt, url) => {
    const href = safeUrl(url);
    return href ? hold(link(href, escapeHtml(alt || url))) : m;
  });
  // Links: the hover description (title) is dropped; anchors and unsafe schemes are not links.
  s = s.replace(/\[([^\]]+)\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g, (m, text, url) => {
    const href = safeUrl(url);
    return href ? hold(link(href, renderInline(text, ctx))) : m;
  });
  s = s.replace(/<((?:https?:\/\/)[^\s<>]+)>/gi, (_m, url) => hold(link(url, escapeHtml(url))));
  s = s.replace(/(^|[\s(])(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"])/gi, (_m, pre, url) => pre + hold(link(url, escapeHtml(url))));
  s = s.replace(/<([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})>/g, (_m, mail) => hold(link(`mailto:${mail}`, escapeHtml(mail))));
  s = s.replace(/\[\^([^\]\s]+)\]/g, (m, label) => {
    const n = ctx.notes.indexOf(label) + 1;
    return n > 0 ? hold(`<sup class="md-fnref"><a href="#${ctx.id}-fn-${n}" id="${ctx.id}-fnref-${n}">${n}</a></sup>`) : m;
  });
  s = escapeHtml(s);
  // Underscores only emphasise at word boundaries (snake_case and __proto__-like words stay as written).
  s = s.replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*\*/g, '<strong><em>$1</em></strong>');
  s = s.replace(/(^|[^\w])___(?=\S)([\s\S]*?\S)___(?!\w)/g, '$1<strong><em>$2</em></strong>');
  s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '$1<strong>$2</strong>');
  s = s.replace(/\*(?=\S)([\s\S]*?\S)\*/g, '<em>$1</em>');
  s = s.replace(/(^|[^\w])_(?=\S)([\s\S]*?\S)_(?!\w)/g, '$1<em>$2</em>');
  s = s.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>');
  // Line break: a newline inside a block is shown as one.
  s = s.replace(/ *\n/g, '<br>');
  const own = new RegExp(`\u0000${call}:(\\d+)\u0000`, 'g');
  let prev;
  do { prev = s; s = s.replace(own, (_m, i) => slots[Number(i)]); } while (s !== prev);
  return s;
}

const isBlank = (l) => /^\s*$/.test(l);
const indentOf = (l) => (/^ */.exec(l)?.[0].length ?? 0);
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^ *(```|~~~)\s*([\w+-]*)\s*$/;
const HR = /^ {0,3}((\*\s*){3,}|(-\s*){3,}|(_\s*){3,})$/;
const TITLE = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Cells of a pipe-table row. */
function cells(row) {
  let r = row.trim();
  if (r.startsWith('|')) r = r.slice(1);
  if (r.endsWith('|') && !r.endsWith('\\|')) r = r.slice(0, -1);
  return r.split(/(?<!\\)\|/).map((c) => c.trim());
}

/** Block features of a list of lines; `quoteDepth` > 0 inside a blockquote (its paragraphs become line breaks only). */
function renderBlocks(lines, ctx, inQuote = false) {
  const out = [];
  let i = 0;
  let para = [];
  const flush = () => {
    if (!para.length) return;
    out.push({ kind: 'p', html: renderInline(para.join('\n'), ctx) });
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) { flush(); out.push({ kind: 'blank' }); i++; continue; }
    let m;
    if ((m = FENCE.exec(line))) {
      flush();
      const fence = m[1];
      const body = [];
      i++;
      while (i < lines.length && !new RegExp(`^ *${fence.replace(/[~`]/g, '\\$&')}\\s*$`).test(lines[i])) body.push(lines[i++]);
      i++;
      out.push({ kind: 'b', html: `<pre class="md-code"><code>${escapeHtml(body.join('\n'))}</code></pre>` });
      continue;
    }
    if (!para.length && /^ {4,}\S/.test(line)) {
      const body = [];
      while (i < lines.length && (/^ {4,}/.test(lines[i]) || (isBlank(lines[i]) && /^ {4,}\S/.test(lines[i + 1] ?? '')))) body.push(lines[i++].slice(4));
      out.push({ kind: 'b', html: `<pre class="md-code"><code>${escapeHtml(body.join('\n'))}</code></pre>` });
      continue;
    }
    if (HR.test(line) && !para.length) { out.push({ kind: 'b', html: '<hr>' }); i++; continue; }
    if ((m = TITLE.exec(line))) {
      flush();
      // Partial: every title level is shown at the same level.
      out.push({ kind: 'b', html: `<p class="md-title" role="heading" aria-level="3">${renderInline(m[2], ctx)}</p>` });
      i++;
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      flush();
      const inner = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i])) inner.push(lines[i++].replace(/^ {0,3}> ?/, ''));
      out.push({ kind: 'b', html: `<blockquote>${renderBlocks(inner, ctx, true)}</blockquote>` });
      continue;
    }
    if (line.includes('|') && TABLE_SEP.test(lines[i + 1] ?? '') && !para.length) {
      const head = cells(line);
      const aligns = cells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : 'left'));
      i += 2;
      const rows = [];
      while (i < lines.length && lines[i].includes('|') && !isBlank(lines[i])) rows.push(cells(lines[i++]));
      const td = (tag, c, k) => `<${tag} style="text-align:${aligns[k] ?? 'left'}">${renderInline(c, ctx)}</${tag}>`;
      out.push({ kind: 'b', html: `<div class="md-table"><table><thead><tr>${head.map((c, k) => td('th', c, k)).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${head.map((_h, k) => td('td', r[k] ?? '', k)).join('')}</tr>`).join('')}</tbody></table></div>` });
      continue;
    }
    if ((m = LIST_ITEM.exec(line))) {
      // A list interrupts a paragraph (a nested list right under an item's first line).
      flush();
      const [html, next] = renderList(lines, i, ctx);
      out.push({ kind: 'b', html });
      i = next;
      continue;
    }
    para.push(line.trim());
    i++;
  }
  flush();
  // Inside a blockquote, paragraphs are separated by line breaks only (Partial row).
  const parts = [];
  for (let k = 0; k < out.length; k++) {
    const b = out[k];
    if (b.kind === 'blank') continue;
    if (b.kind === 'p') {
      if (inQuote) {
        const prev = parts.length ? out.slice(0, k).reverse().find((x) => x.kind !== 'blank') : undefined;
        parts.push(`${prev && prev.kind === 'p' ? '<br>' : ''}${b.html}`);
      } else parts.push(`<p>${b.html}</p>`);
    } else parts.push(b.html);
  }
  return parts.join('');
}

/** A list starting at line `start` (ordered, unordered, task); nested lists, blockquotes and code blocks by indentation. */
function renderList(lines, start, ctx) {
  const first = LIST_ITEM.exec(lines[start]);
  const base = first[1].length;
  const ordered = /\d/.test(first[2]);
  const startNo = ordered ? parseInt(first[2], 10) : 1;
  const items = [];
  let i = start;
  while (i < lines.length) {
    const m = LIST_ITEM.exec(lines[i]);
    if (!m || m[1].length !== base || /\d/.test(m[2]) !== ordered) break;
    const contentIndent = m[0].length - m[3].length;
    const body = [m[3]];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (isBlank(l)) {
        // A blank line ends the list unless the next line continues the item (indented).
        if (i + 1 < lines.length && indentOf(lines[i + 1]) > base && !isBlank(lines[i + 1])) { body.push(''); i++; continue; }
        break;
      }
      const sub = LIST_ITEM.exec(l);
      if (sub && sub[1].length <= base) break;
      if (!sub && indentOf(l) <= base && body.length && isBlank(body[body.length - 1])) break;
      body.push(l.slice(Math.min(indentOf(l), contentIndent)));
      i++;
    }
    items.push(body);
  }
  const lis = items.map((body) => {
    let task = '';
    const t = /^\[([ xX])\]\s+/.exec(body[0]);
    if (t) {
      task = `<input type="checkbox" disabled${t[1] === ' ' ? '' : ' checked'} aria-label="${t[1] === ' ' ? 'to do' : 'done'}"> `;
      body[0] = body[0].slice(t[0].length);
    }
    // Partial: a nested paragraph in a list becomes line breaks only.
    const html = renderBlocks(body, ctx, true);
    return `<li${task ? ' class="md-task"' : ''}>${task}${html}</li>`;
  });
  const tag = ordered ? 'ol' : 'ul';
  return [`<${tag}${ordered && startNo !== 1 ? ` start="${startNo}"` : ''}>${lis.join('')}</${tag}>`, i];
}

/** The whole text value → HTML (every character of bot text escaped; only the tags above are produced). */
export function renderMarkdown(text, id = 'm') {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  // Footnote definitions `[^label]: text` are collected and listed at the end.
  const defs = new Map();
  const body = [];
  for (const l of lines) {
    const m = /^\[\^([^\]\s]+)\]:\s*(.*)$/.exec(l);
    if (m) defs.set(m[1], m[2]);
    else body.push(l);
  }
  const ctx = { id, notes: [...defs.keys()] };
  let html = renderBlocks(body, ctx);
  if (defs.size) {
    html += `<ol class="md-footnotes">${[...defs.entries()].map(([, t], k) => `<li id="${id}-fn-${k + 1}">${renderInline(t, ctx)} <a href="#${id}-fnref-${k + 1}" aria-label="back to the text">↩</a></li>`).join('')}</ol>`;
  }
  return html;
}

export { ESCAPABLE };
