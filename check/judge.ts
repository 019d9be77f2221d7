// Pure judgements over connector answers (replies, dates, transfers, images, bundles), shared by the check suites and unit-tested on their own.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { check, formatErrors, validator } from '../lib/schemas.js';
import { LIMITS } from '../lib/limits.js';
import { isoDateTimeKind } from '../lib/iso8601.js';

export interface Located<T> { where: string; value: T }
type Reply = Record<string, any>;

/** Ms of a spec duration object `{ unit: millis|seconds|minutes, value }`; undefined when malformed. */
export function durationMs(d: unknown): number | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const { unit, value } = d as { unit?: unknown; value?: unknown };
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const factor = unit === 'millis' ? 1 : unit === 'seconds' ? 1_000 : unit === 'minutes' ? 60_000 : undefined;
  return factor === undefined ? undefined : value * factor;
}

/** ISO 8601 date-time (G24: offset and fraction optional; Java's `[zone]` suffix accepted, see dateWarnings). */
export function isIsoDateTime(v: unknown): boolean {
  return isoDateTimeKind(v) !== null;
}

/** The date fields of a Bot or Connector conversation, with the name used (`updateAt` where `allowUpdateAt`). */
function dateFields(o: Record<string, unknown>, allowUpdateAt: boolean): Array<[string, unknown]> {
  const name = o.updatedAt === undefined && allowUpdateAt && o.updateAt !== undefined ? 'updateAt' : 'updatedAt';
  return [['createdAt', o.createdAt], [name, o[name]]];
}

/** Problems with createdAt/updatedAt of an object (Bot or Connector conversation): missing, empty or not a date-time fail. */
export function dateProblems(obj: unknown, allowUpdateAt: boolean): string[] {
  if (!obj || typeof obj !== 'object') return ['the answer is not an object'];
  return dateFields(obj as Record<string, unknown>, allowUpdateAt).filter(([, v]) => !isIsoDateTime(v)).map(([k, v]) => `${k} ${JSON.stringify(v)} is not an ISO 8601 date-time`);
}

/** Allowed date variants worth a WARN (G24): Java's zoned form, valid ISO 8601 plus a zone id the spec does not ask for. */
export function dateWarnings(obj: unknown, allowUpdateAt: boolean): string[] {
  if (!obj || typeof obj !== 'object') return [];
  return dateFields(obj as Record<string, unknown>, allowUpdateAt).filter(([, v]) => isoDateTimeKind(v) === 'java-zoned').map(([k, v]) => javaDateWarning(k, String(v)));
}

/** The WARN of one date field in Java's zoned form (one sentence per field, however many answers carry it). */
export const javaDateWarning = (field: string, example: string): string =>
  `${field} is in Java's zoned form (ZonedDateTime.toString(), e.g. ${JSON.stringify(example)}): accepted as ISO 8601 with a zone id, but plain ISO 8601 (${JSON.stringify(example.replace(/\[.*\]$/, ''))}) is what the spec shows (G24)`;

/** Date WARNs of several answers, one per field (the first example kept). */
export function dateWarningsOf(objs: unknown[], allowUpdateAt: boolean): string[] {
  const byField = new Map<string, string>();
  for (const o of objs) {
    if (!o || typeof o !== 'object') continue;
    for (const [k, v] of dateFields(o as Record<string, unknown>, allowUpdateAt)) if (isoDateTimeKind(v) === 'java-zoned' && !byField.has(k)) byField.set(k, String(v));
  }
  return [...byField].map(([k, v]) => javaDateWarning(k, v));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** G23: the connector's own idConversation is joined; one that is not a UUID is a WARN (the resource table types it UUID). */
export function conversationIdWarning(id: unknown): string | null {
  if (typeof id !== 'string' || id === '' || UUID.test(id)) return null;
  return `idConversation ${JSON.stringify(id)} is the connector's own id and not a UUID: the service joins it and uses it on every later call (G23), but the resource table types it UUID`;
}

/** G25: top-level fields of an answer beyond those the schema lists (tolerated; a NOTE names them). */
export function unlistedFields(schemaId: string, data: unknown): string[] {
  const listed = Object.keys(((validator(schemaId).schema ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  return data && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data).filter((k) => !listed.includes(k)) : [];
}

/** Every payload carried by replies (message replies only), with where it is. */
export function payloadsOf(replies: Reply[], origin: string): Located<Record<string, any>>[] {
  return replies.flatMap((r, i) => (r?.type === 'message' && r.payload && typeof r.payload === 'object' ? [{ where: `${origin} replies[${i}]`, value: r.payload }] : []));
}

/** Cards and offers of a payload, bundles unfolded. */
function parts(p: Located<Record<string, any>>): Located<Record<string, any>>[] {
  const v = p.value;
  if (v.contentType === 'bundle/card' && Array.isArray(v.cards)) return v.cards.map((c: any, i: number) => ({ where: `${p.where}.payload.cards[${i}]`, value: c ?? {} }));
  if (v.contentType === 'bundle/product-offer' && Array.isArray(v.offers)) return v.offers.map((c: any, i: number) => ({ where: `${p.where}.payload.offers[${i}]`, value: c ?? {} }));
  return [{ where: `${p.where}.payload`, value: v }];
}

/** Text values of bot messages (`text` payload values, card texts and titles), the values the 450/250 limits apply to. */
/** Texts longer than `max` characters, each as `where: N characters` (CONN-TEXT-01 at the spec's 450; CONN-TEXT-02 at the advised 250). */
export function longTexts(texts: Located<string>[], max: number = LIMITS.botTextMax): string[] {
  return texts.filter((t) => t.value.length > max).map((t) => `${t.where}: ${t.value.length} characters`);
}

export function textsOf(replies: Reply[], origin: string): Located<string>[] {
  const out: Located<string>[] = [];
  for (const p of payloadsOf(replies, origin)) {
    if (p.value.contentType === 'text' && typeof p.value.value === 'string') out.push({ where: `${p.where}.payload.value`, value: p.value.value });
    for (const part of parts(p)) {
      if (typeof part.value.text === 'string') out.push({ where: `${part.where}.text`, value: part.value.text });
    }
  }
  return out;
}

/** Quick-reply counts per message reply that has quick replies. */
export function quickReplyCounts(replies: Reply[], origin: string): Located<number>[] {
  return replies.flatMap((r, i) => (r?.type === 'message' && Array.isArray(r.quickReplies) && r.quickReplies.length ? [{ where: `${origin} replies[${i}]`, value: r.quickReplies.length }] : []));
}

/** Quick-reply values offered by replies, in order. */
export function quickReplyValues(replies: Reply[]): string[] {
  return replies.flatMap((r) => (r?.type === 'message' && Array.isArray(r.quickReplies) ? r.quickReplies.map((q: any) => q?.value).filter((v: unknown): v is string => typeof v === 'string') : []));
}

export interface TransferInfo { where: string; rule: unknown; timeoutMs: number | undefined; explicit: boolean }
/** Transfer replies with their timeout in ms (the 60 s default when transferOptions is omitted). */
export function transfersOf(replies: Reply[], origin: string): TransferInfo[] {
  return replies.flatMap((r, i) => {
    if (r?.type !== 'transfer') return [];
    const explicit = r.transferOptions !== undefined;
    const timeoutMs = explicit ? durationMs(r.transferOptions?.timeout) : LIMITS.transferTimeoutDefaultMs;
    return [{ where: `${origin} replies[${i}]`, rule: r.distributionRule, timeoutMs, explicit }];
  });
}

/** Image objects (url, description) of cards and offers, bundles unfolded. */
export function imagesOf(replies: Reply[], origin: string): Located<{ url?: unknown; description?: unknown }>[] {
  const out: Located<{ url?: unknown; description?: unknown }>[] = [];
  for (const p of payloadsOf(replies, origin)) for (const part of parts(p)) {
    if (part.value.image && typeof part.value.image === 'object') out.push({ where: `${part.where}.image`, value: part.value.image });
  }
  return out;
}

/** Problems of bundle/* items: every card a valid card/content, every offer a valid product-offer. */
export function bundleProblems(replies: Reply[], origin: string): Located<string>[] {
  const out: Located<string>[] = [];
  for (const p of payloadsOf(replies, origin)) {
    const v = p.value;
    if (v.contentType === 'bundle/card') {
      if (!Array.isArray(v.cards) || v.cards.length === 0) out.push({ where: `${p.where}.payload`, value: 'bundle/card without a non-empty cards array' });
      else v.cards.forEach((c: unknown, i: number) => { const e = check('connector/payload.json#/$defs/card', c); if (e) out.push({ where: `${p.where}.payload.cards[${i}]`, value: e }); });
    }
    if (v.contentType === 'bundle/product-offer') {
      if (!Array.isArray(v.offers) || v.offers.length === 0) out.push({ where: `${p.where}.payload`, value: 'bundle/product-offer without a non-empty offers array' });
      else v.offers.forEach((o: unknown, i: number) => { const e = check('connector/payload.json#/$defs/offer', o); if (e) out.push({ where: `${p.where}.payload.offers[${i}]`, value: e }); });
    }
  }
  return out;
}

/** Bundle payloads in replies (so a bundle check can say it had something to judge). */
export const bundlesOf = (replies: Reply[], origin: string) => payloadsOf(replies, origin).filter((p) => String(p.value.contentType).startsWith('bundle/'));

/**
 * Schema errors a vendor can act on: each once, without ajv's `must match "then" schema` (an if/then rule that failed says
 * nothing the errors of its fields do not say), and with the value that broke a format.
 */
export function readableErrors(errors: ErrorObject[] | null | undefined, data?: unknown): string | null {
  const kept = (errors ?? []).filter((e) => e.keyword !== 'if' && !(e.keyword === 'anyOf' && (errors ?? []).some((o) => o !== e && o.instancePath.startsWith(e.instancePath))));
  const valueAt = (pointer: string): unknown => pointer.split('/').slice(1).reduce<any>((v, k) => (v && typeof v === 'object' ? v[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), data);
  const texts = kept.map((e) => {
    const shown = e.keyword === 'format' || e.keyword === 'enum' ? ` (got ${JSON.stringify(valueAt(e.instancePath))?.slice(0, 60)})` : '';
    return `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${(e.params as any).additionalProperty})` : ''}${shown}`;
  });
  const unique = [...new Set(texts)];
  return unique.length ? unique.join('; ') : (errors?.length ? formatErrors(errors) : null);
}

/** Reply-schema problems of a replies array (each item against connector/reply.json). */
export function replyProblems(replies: unknown, origin: string): string[] {
  if (!Array.isArray(replies)) return [`${origin}: replies is not an array`];
  const v = validator('connector/reply.json');
  return replies.flatMap((r, i) => (v(r) ? [] : [`${origin} replies[${i}]: ${readableErrors(v.errors, r)}`]));
}

/** Strategies whose distributionRulesToCheck names rules that were not given. */
export function unknownRules(strategies: unknown, given: string[]): string[] {
  if (!Array.isArray(strategies)) return [];
  return strategies.flatMap((s, i) => (Array.isArray(s?.distributionRulesToCheck) ? s.distributionRulesToCheck.filter((r: unknown) => !given.includes(String(r))).map((r: unknown) => `[${i}] ${s.strategy}: ${JSON.stringify(r)}`) : []));
}

/** Schema errors of data, leaving out those another clause judges (so each failure is reported under one clause). */
export function schemaErrors(id: string, data: unknown, ignore: (e: ErrorObject) => boolean = () => false): string | null {
  const v = validator(id);
  if (v(data)) return null;
  const kept = (v.errors ?? []).filter((e) => !ignore(e));
  return kept.length ? readableErrors(kept, data) : null;
}

const DATE_FIELDS = new Set(['createdAt', 'updatedAt', 'updateAt']);
/** Errors about createdAt/updatedAt (judged by the dates clauses). */
export const isDateError = (e: ErrorObject): boolean =>
  DATE_FIELDS.has(e.instancePath.replace(/^\//, '')) || (e.keyword === 'required' && DATE_FIELDS.has(String((e.params as any).missingProperty))) || e.keyword === 'anyOf';
/** Errors of conditional requirements (`if`/`then`) and of the fields they require. */
export const isConditionalError = (fields: string[]) => (e: ErrorObject): boolean =>
  e.keyword === 'if' || (e.keyword === 'required' && fields.includes(String((e.params as any).missingProperty)));

/** Types of the replies an answer to an operator-role message carried (CONN-LOOP-01/02: it must carry none; `[]` when it conforms). */
export function operatorReplies(answer: unknown): string[] {
  const replies = (answer as { replies?: unknown } | undefined)?.replies;
  return Array.isArray(replies) ? replies.map((r) => String((r as Reply)?.type)) : [];
}

/** Transfers naming a distribution rule that was not given in the bot write body (CONN-TRANSFER-03), each as `where: rule`. */
export function unknownTransferRules(transfers: TransferInfo[], given: string[]): string[] {
  return transfers.filter((t) => !given.includes(String(t.rule))).map((t) => `${t.where}: ${JSON.stringify(t.rule)}`);
}

/** Problems of a 2xx endpoint-7 answer against connector/conversation.json and connector/reply.json (dates judged apart, CONN-EP7-02). */
export function messageAnswerProblems(json: unknown, origin: string): string[] {
  const errors = schemaErrors('connector/conversation.json', json, isDateError);
  return [...(errors ? [`${origin}: ${errors}`] : []), ...replyProblems((json as { replies?: unknown } | undefined)?.replies ?? [], origin)];
}

/**
 * G28 by tokens: the strings of one conversation's answer (replies and variables) that carry another conversation's token. Each
 * conversation's visitor texts carry a token of its own, so a reply that repeats another conversation's words is told from a
 * greeting every conversation gets.
 */
export function foreignTokens(answer: unknown, others: Array<{ name: string; token: string }>): string[] {
  const a = (answer ?? {}) as { replies?: unknown; variables?: unknown };
  const strings: Array<{ where: string; value: string }> = [];
  const walk = (v: unknown, where: string): void => {
    if (typeof v === 'string') strings.push({ where, value: v });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(a.replies, 'replies');
  walk(a.variables, 'variables');
  return strings.flatMap((s) => others.filter((o) => s.value.includes(o.token)).map((o) => `${s.where} ${JSON.stringify(s.value.length > 80 ? `${s.value.slice(0, 79)}…` : s.value)} carries the token of ${o.name} (${o.token})`));
}
