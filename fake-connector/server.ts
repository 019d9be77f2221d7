// The fake bot connector: a programmable HTTPS connector (scenarios as data, faults, request log, control API under /_control).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Pem } from '../lib/tls.js';
import { FIXTURES } from '../lib/paths.js';
import { verify, SIGNATURE_HEADER } from '../lib/signature.js';
import { guardRoutes, newControlToken } from '../lib/control-auth.js';
import { check } from '../lib/schemas.js';
import { LIMITS } from '../lib/limits.js';
import { cardPng } from './image.js';
import { PollIntervals } from './intervals.js';
import { installErrorHandling, plainShape } from '../lib/http-errors.js';
import { asVersion, CONNECTOR_VERSIONS, type ConnectorVersion } from './versions.js';
import type { Reply } from './reply.js';
import { AFTER_CLICK_REPLY, hasCharacterOf, newMemory, rememberAnswer, VALUED_MODES, type ConversationMemory, type ValuedModes } from './hidden-bugs.js';

export interface FakeConnectorOptions {
  tls: Pem; secret: string; port?: number; host?: string; scenariosDir?: string;
  /** Bearer token every /_control route requires (the stack's sim_token); a random one when absent. */
  controlToken?: string;
  /** The bot version answering visitor messages (fake-connector/versions.ts); v1 by default. */
  version?: ConnectorVersion;
}
export interface RunningServer { url: string; close(): Promise<void> }
export interface FakeConnector extends RunningServer { controlUrl: string; controlToken: string; state: ConnectorState }

/** The connector endpoints of the spec, by the name the control API uses. */
export const ENDPOINTS = ['external-bots', 'bot-put', 'bot-get', 'availability', 'first-messages', 'conversation-create', 'messages'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export type { Reply };
export interface Scenario {
  idBot: string; name: string; description?: string; editorUrl: string;
  firstMessages: Reply[]; availability: unknown[];
  responses: Array<{ text: string; replies: Reply[]; variables?: Array<{ key: string; value: string }> }>;
  fallback: Reply[];
}
/** What the connector does on one endpoint call, in addition to or instead of answering. */
export interface Fault {
  delayMs?: number; status?: number; reset?: boolean; malformed?: boolean; invalid?: boolean;
  /** messages endpoint: answer operator-role messages with replies (a looping connector). */
  replyToOperator?: boolean;
  /** messages endpoint: text replies get a 451-character value. */
  longText?: boolean;
  /** Applies this many times, then is removed (default: until reset). */
  times?: number;
}
/**
 * Variants of a connector's behaviour (issue 13), switched with `POST /_control/mode`: allowed ones a correct connector may
 * show (G23 own ids, G24 Java dates, G25 extra fields) and wrong ones (refusing every call, state shared across
 * conversations, answers carrying another conversation's id).
 */
export interface ConnectorMode extends ValuedModes {
  /** Answers POST /conversations with its own non-UUID id and expects it on later calls (G23: allowed, a WARN). */
  ownIds?: boolean;
  /** Dates in Java's ZonedDateTime.toString() form, `...Z[Etc/UTC]` (G24: allowed, a WARN). */
  javaDates?: boolean;
  /** Fields beyond those listed in Bot and conversation answers (G25: allowed, a NOTE). */
  extraFields?: boolean;
  /** Refuses every call with 401, correctly signed or not. */
  refuseAll?: boolean;
  /** Keeps the visitor's last text in one variable for all conversations (G28: wrong when several are held at once). */
  sharedState?: boolean;
  /** Answers carry the idConversation of the conversation opened last (G28: wrong when several are held at once). */
  wrongConversation?: boolean;
  /**
   * PUT /bots/{idOperator} is not implemented: answered 404 as a path that does not exist (issue 25). Endpoints 4-7 work, for
   * any idOperator, with the first scenario of the folder (a connector serving one bot, as unfinished ones do: G36).
   */
  noPutBots?: boolean;
  /** Only endpoints 6 and 7 are implemented: endpoints 1-5 are answered 404 as paths that do not exist. */
  onlyConversations?: boolean;
  /** GET /external-bots answers an empty list (a bot agent then has no scenario to select). */
  emptyScenarios?: boolean;
  /** A conversation call takes a moment and never ends when another conversation's call is in flight (a lock taken in the wrong order). */
  hangConcurrent?: boolean;
  /** Operator-role messages (the bot's own echoed replies) are never answered: the connection is closed without an answer. */
  silentToOperator?: boolean;
  /** Operator-role messages (the desk's, and the bot's own echoed replies) are answered 200 with an empty body: not a Connector conversation, not JSON. */
  operatorEmptyBody?: boolean;
  /** GET /external-bots lists each editorUrl as a path of the editor (`/scenarios/<idBot>/edit`), not a URI (the Bot answers keep the URI). */
  relativeEditorUrl?: boolean;
  /** PUT /bots/{idOperator} answers the Bot under the connector's own bot id (`bot-<n>`), not the path's idOperator (GET answers it right). */
  putAnswersOwnId?: boolean;
  /** GET /bots/{idOperator} answers the scenario's name as external.idBot, not the idBot the bot was created on (PUT answers it right). */
  getNameAsIdBot?: boolean;
  /** GET /availability-strategies answers a customAvailability strategy whose Boolean is spelled `available`, so `availability` is missing. */
  misspelledAvailability?: boolean;
  /** (issue 41) Once a quick reply was clicked in a conversation, operator-role messages whose text the bot did not send (a human operator's) get a reply; echoes stay quiet. */
  operatorReplyAfterClick?: boolean;
  /** (issue 41) Each conversation's first visitor text is kept as the variable `firstMessage`; a quick-reply click stores them per bot, and the next conversation opened answers with them (a leak). */
  leakVariablesAfterClick?: boolean;
}
export const MODE_KEYS = ['ownIds', 'javaDates', 'extraFields', 'refuseAll', 'sharedState', 'wrongConversation', 'noPutBots', 'onlyConversations', 'emptyScenarios', 'hangConcurrent', 'silentToOperator', 'operatorEmptyBody',
  'relativeEditorUrl', 'putAnswersOwnId', 'getNameAsIdBot', 'misspelledAvailability', 'operatorReplyAfterClick', 'leakVariablesAfterClick'] as const;
/** hangConcurrent: how long one conversation call holds the connector's lock (long enough for calls sent at once to meet). */
const HANG_WORK_MS = 150;
/** Endpoints answered as paths that do not exist, per mode. */
const MISSING: Array<[keyof ConnectorMode, Endpoint[]]> = [['noPutBots', ['bot-put']], ['onlyConversations', ['external-bots', 'bot-put', 'bot-get', 'availability', 'first-messages']]];

/** A per-visitor-text script: the first visitor message with `text` binds the conversation to it. */
export interface Script { text: string; replies: Reply[]; variables?: Array<{ key: string; value: string }>; then?: Record<string, Reply[]>; faults?: Partial<Record<Endpoint, Fault>> }
interface FaultRule { endpoint: Endpoint; idOperator?: string; text?: string; fault: Fault }

export interface RequestRecord {
  seq: number; at: number; method: string; path: string; endpoint: Endpoint | 'unknown';
  query: Record<string, string>; rawQuery: string; body: unknown; signature: { ok: boolean; reason?: string };
  violations: string[]; idOperator?: string; idConversation?: string; role?: string; text?: string;
  answer?: { status: number | 'reset'; ms: number; body?: unknown };
}

export class ConnectorState {
  scenarios = new Map<string, Scenario>();
  bots = new Map<string, { write: any; createdAt: string; updatedAt: string; idWebsite?: string }>();
  scripts = new Map<string, Script>();
  operatorOverrides = new Map<string, { firstMessages?: Reply[]; availability?: unknown[] }>();
  faults: FaultRule[] = [];
  /** idConversation (the service's and ours) → idOperator and bound script. */
  conversations = new Map<string, { idOperator: string; script?: Script; createdAt: string; memory?: ConversationMemory }>();
  /** leakVariablesAfterClick: the variables a click stored per bot, handed to the next conversation opened (the bug). */
  leaked = new Map<string, Array<{ key: string; value: string }>>();
  log: RequestRecord[] = [];
  /** Endpoint-4 interval errors per bot, counted on arrival (the log above is capped). */
  intervals = new PollIntervals(LIMITS.availabilityPollMs);
  /** The bot version answering visitor messages (fake-connector/versions.ts). */
  version: ConnectorVersion = 'v1';
  /** Behaviour variants (ConnectorMode). */
  mode: ConnectorMode = {};
  /** sharedState: the last visitor text, of whatever conversation (the bug it simulates). */
  lastText?: string;
  /** wrongConversation: the conversation opened last. */
  lastOpened?: string;
  /** hangConcurrent: the conversation whose call holds the lock, and how many of its calls are in flight. */
  busy?: { conversation: string; calls: number };
  /** ownIds: the connector's own conversation ids handed out. */
  private ownSeq = 0;
  nextOwnId(): string { return `conv-${++this.ownSeq}`; }
  /** putAnswersOwnId: the connector's own bot ids, one per idOperator created. */
  ownBotIds = new Map<string, string>();
  private seq = 0;
  private waiters = new Set<{ match: (r: RequestRecord) => boolean; resolve: (r: RequestRecord) => void }>();

  constructor(private scenariosDir: string) { this.loadScenarios(); }

  loadScenarios(): void {
    this.scenarios.clear();
    for (const f of fs.readdirSync(this.scenariosDir).filter((x) => x.endsWith('.json')).sort()) {
      const s = JSON.parse(fs.readFileSync(path.join(this.scenariosDir, f), 'utf8')) as Scenario;
      this.scenarios.set(s.idBot, s);
    }
  }

  reset(): void {
    this.scripts.clear(); this.operatorOverrides.clear(); this.faults = []; this.log = []; this.mode = {}; this.ownBotIds.clear(); this.leaked.clear();
    this.loadScenarios();
  }

  record(r: Omit<RequestRecord, 'seq'>): RequestRecord {
    const rec = { ...r, seq: ++this.seq } as RequestRecord;
    this.log.push(rec);
    if (rec.endpoint === 'availability' && rec.idOperator) this.intervals.note(rec.idOperator, rec.at);
    // Availability polls arrive every second per bot: keep the log bounded.
    if (this.log.length > 20_000) this.log.splice(0, this.log.length - 15_000);
    for (const w of [...this.waiters]) if (w.match(rec)) { this.waiters.delete(w); w.resolve(rec); }
    return rec;
  }

  /** Resolves with the first request (already logged after `since`, or arriving before the deadline) that matches. */
  waitFor(match: (r: RequestRecord) => boolean, since: number, timeoutMs: number): Promise<RequestRecord | null> {
    const found = this.log.find((r) => r.seq > since && match(r));
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const w = { match, resolve: (r: RequestRecord) => { clearTimeout(t); resolve(r); } };
      const t = setTimeout(() => { this.waiters.delete(w); resolve(null); }, timeoutMs);
      this.waiters.add(w);
    });
  }

  faultFor(endpoint: Endpoint, idOperator?: string, script?: Script): Fault | undefined {
    const fromScript = script?.faults?.[endpoint];
    if (fromScript) return fromScript;
    const i = this.faults.findIndex((f) => f.endpoint === endpoint && (!f.idOperator || f.idOperator === idOperator) && (!f.text || f.text === script?.text));
    if (i < 0) return undefined;
    const rule = this.faults[i]!;
    if (rule.fault.times !== undefined && --rule.fault.times <= 0) this.faults.splice(i, 1);
    return rule.fault;
  }

  scenarioOf(idOperator: string): Scenario | undefined {
    const idBot = this.bots.get(idOperator)?.write?.external?.idBot;
    return idBot ? this.scenarios.get(idBot) : undefined;
  }
}

/** Replaces the data placeholders of a scenario: `@rule:<label>` (a distribution rule of the bot), `@uuid`, `{{connector_url}}`. */
export function materialize<T>(value: T, ctx: { rules: Array<{ id: string; label: string }>; connectorUrl: string }): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v === '@uuid') return randomUUID();
      if (v.startsWith('@rule:')) {
        const label = v.slice(6);
        return ctx.rules.find((r) => r.label === label || r.label.startsWith(label))?.id ?? '00000000-0000-4000-8000-000000000000';
      }
      return v.split('{{connector_url}}').join(ctx.connectorUrl);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

const ROUTES: Array<{ endpoint: Endpoint; method: string; pattern: RegExp; body?: string; query: string }> = [
  { endpoint: 'external-bots', method: 'GET', pattern: /^\/external-bots$/, query: 'connector/query.json#/$defs/withWebsite' },
  { endpoint: 'first-messages', method: 'GET', pattern: /^\/bots\/([^/]+)\/conversation-first-messages$/, query: 'connector/query.json' },
  { endpoint: 'bot-put', method: 'PUT', pattern: /^\/bots\/([^/]+)$/, body: 'connector/bot-write.json', query: 'connector/query.json#/$defs/withWebsite' },
  { endpoint: 'bot-get', method: 'GET', pattern: /^\/bots\/([^/]+)$/, query: 'connector/query.json#/$defs/withWebsite' },
  { endpoint: 'availability', method: 'GET', pattern: /^\/availability-strategies$/, query: 'connector/query.json#/$defs/availability' },
  { endpoint: 'conversation-create', method: 'POST', pattern: /^\/conversations$/, body: 'connector/conversation-create.json', query: 'connector/query.json#/$defs/withWebsite' },
  { endpoint: 'messages', method: 'POST', pattern: /^\/conversations\/([^/]+)\/messages$/, body: 'connector/message-post.json', query: 'connector/query.json#/$defs/withWebsite' },
];

/** The connector endpoint a call is for (by method and path), with its path parameter; null for a path the spec does not name. */
export function endpointOf(method: string, pathname: string): { endpoint: Endpoint; param?: string } | null {
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(pathname));
  if (!route) return null;
  const m = route.pattern.exec(pathname)!;
  return { endpoint: route.endpoint, ...(m[1] ? { param: decodeURIComponent(m[1]) } : {}) };
}

const LONG_TEXT = 'L'.repeat(LIMITS.botTextMax + 1);

export async function startFakeConnector(opts: FakeConnectorOptions): Promise<FakeConnector> {
  const state = new ConnectorState(opts.scenariosDir ?? path.join(FIXTURES, 'scenarios'));
  state.version = opts.version ?? 'v1';
  const png = cardPng();
  const app = Fastify({ https: { cert: opts.tls.cert, key: opts.tls.key }, bodyLimit: 1024 * 1024 });
  // Errors in one documented shape ({error, message}), 405 + Allow on known paths, nothing internal in 5xx answers.
  installErrorHandling(app, { shape: plainShape });
  // Signatures are over the raw bytes: keep them.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  let url = '';
  // Nobody but the harness may reprogram the judge: every control route requires the token.
  const controlToken = opts.controlToken ?? newControlToken();
  guardRoutes(app, '/_control', controlToken, 'the fake connector control API');

  // javaDates: what Java's ZonedDateTime.toString() writes for UTC.
  const nowIso = () => (state.mode.javaDates ? `${new Date().toISOString()}[Etc/UTC]` : new Date().toISOString());
  /** extraFields: fields the spec does not list, as real connectors add them. */
  const extra = () => (state.mode.extraFields ? { locale: 'en-GB', _links: { self: { href: `${url}/self` } } } : {});

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    const started = Date.now();
    const [pathname, rawQuery = ''] = req.url.split('?') as [string, string?];
    const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(pathname));
    const raw = typeof req.body === 'string' ? req.body : '';
    const query = Object.fromEntries(new URLSearchParams(rawQuery)) as Record<string, string>;
    const violations: string[] = [];
    let body: any;
    if (raw) { try { body = JSON.parse(raw); } catch { violations.push('request body is not JSON'); } }
    const signature = verify(opts.secret, req.method === 'GET' ? rawQuery : raw, req.headers[SIGNATURE_HEADER] as string | undefined);
    if (!signature.ok) violations.push(`signature: ${signature.reason}`);
    if (!route) {
      const rec = state.record({ at: started, method: req.method, path: pathname, endpoint: 'unknown', query, rawQuery, body, signature, violations: [...violations, 'no such connector endpoint'] });
      rec.answer = { status: 404, ms: 0 };
      return reply.code(404).send({ error: 'not_found' });
    }
    const m = route.pattern.exec(pathname)!;
    const qErr = check(route.query, query);
    if (qErr) violations.push(`query: ${qErr}`);
    if (route.body && body !== undefined) { const e = check(route.body, body); if (e) violations.push(`body: ${e}`); }
    if (route.body && !raw) violations.push('body: missing');
    const idOperator = route.endpoint === 'availability' ? query.idOperator : route.endpoint === 'conversation-create' || route.endpoint === 'messages' ? body?.idOperator : m[1] ? decodeURIComponent(m[1]) : undefined;
    const idConversation = route.endpoint === 'messages' ? decodeURIComponent(m[1]!) : route.endpoint === 'conversation-create' ? body?.idConversation : undefined;
    const role = route.endpoint === 'messages' ? body?.message?.author?.role : undefined;
    const text = route.endpoint === 'messages' && body?.message?.payload?.contentType === 'text' ? body.message.payload.value : undefined;
    const rec = state.record({ at: started, method: req.method, path: pathname, endpoint: route.endpoint, query, rawQuery, body, signature, violations, idOperator, idConversation, role, text });

    const finish = (status: number | 'reset', sent?: unknown) => { rec.answer = { status, ms: Date.now() - started, body: sent }; };
    // An endpoint a mode leaves out answers exactly as a path that does not exist (lib/http-errors.ts), before any signature check.
    if (MISSING.some(([k, eps]) => state.mode[k] && eps.includes(route.endpoint))) {
      finish(404);
      return reply.code(404).send(plainShape(404, `Unknown route ${req.method} ${pathname}.`, req));
    }
    // A real connector refuses unsigned calls; refuseAll refuses the signed ones too.
    if (!signature.ok || state.mode.refuseAll) { finish(401); return reply.code(401).send({ error: 'invalid_signature', message: signature.ok ? 'refused' : signature.reason }); }

    if (state.mode.silentToOperator && route.endpoint === 'messages' && role === 'operator') { finish('reset'); req.raw.socket.destroy(); return reply; }
    if (state.mode.operatorEmptyBody && route.endpoint === 'messages' && role === 'operator') { finish(200); return reply.code(200).send(); }
    if (state.mode.hangConcurrent && idConversation && (route.endpoint === 'messages' || route.endpoint === 'conversation-create')) {
      if (state.busy && state.busy.conversation !== idConversation) {
        // The lock is held by another conversation's call: this one waits for ever (until the caller gives up).
        await new Promise<void>((resolve) => reply.raw.once('close', () => resolve()));
        finish('reset');
        return reply;
      }
      // The lock is held while the call is worked on and released before its answer is sent (so no answer can reach the
      // caller while it is still held).
      state.busy = { conversation: idConversation, calls: (state.busy?.calls ?? 0) + 1 };
      await new Promise((r) => setTimeout(r, HANG_WORK_MS));
      if (--state.busy.calls <= 0) state.busy = undefined;
    }
    const conv = idConversation ? state.conversations.get(idConversation) : undefined;
    let script = conv?.script;
    if (route.endpoint === 'messages' && role === 'visitor' && text !== undefined && !script) {
      script = state.scripts.get(text);
      if (script && conv) conv.script = script;
    }
    const memory = conv?.memory;
    if (memory && route.endpoint === 'messages' && role === 'visitor') {
      memory.visitorMessages++;
      memory.firstText ??= typeof text === 'string' ? text : undefined;
      if (state.mode.crashOnCharacters && typeof text === 'string' && hasCharacterOf(state.mode.crashOnCharacters, text)) { finish('reset'); req.raw.socket.destroy(); return reply; }
      if (state.mode.failOnVisitorMessage === memory.visitorMessages) { finish(500); return reply.code(500).send({ error: 'internal_error' }); }
    }
    const fault = state.faultFor(route.endpoint, idOperator, script);
    if (fault?.delayMs) {
      // The caller giving up (its time limit) closes the connection before we answer: record it as such.
      const aborted = await new Promise<boolean>((resolve) => {
        const onClose = () => { clearTimeout(t); resolve(true); };
        const t = setTimeout(() => { reply.raw.off('close', onClose); resolve(false); }, fault.delayMs);
        reply.raw.once('close', onClose);
      });
      if (aborted) { finish('reset'); return reply; }
    }
    if (fault?.reset) { finish('reset'); req.raw.socket.destroy(); return reply; }
    if (fault?.status) { finish(fault.status); return reply.code(fault.status).send({ error: 'fault', status: fault.status }); }
    if (fault?.malformed) { finish(200, '{"replies": [oops'); return reply.type('application/json').send('{"replies": [oops'); }
    if (fault?.invalid) { finish(200, { unexpected: true }); return reply.send({ unexpected: true }); }

    const bot = idOperator ? state.bots.get(idOperator) : undefined;
    const rules: Array<{ id: string; label: string }> = bot?.write?.distributionRules ?? [];
    const mat = <T>(v: T) => materialize(v, { rules, connectorUrl: url });
    // noPutBots: no bot is ever created, so every idOperator is served with the first scenario (one bot for all).
    const scenario = idOperator ? state.scenarioOf(idOperator) ?? (state.mode.noPutBots ? state.scenarios.values().next().value : undefined) : undefined;
    const override = idOperator ? state.operatorOverrides.get(idOperator) : undefined;
    let out: unknown;
    switch (route.endpoint) {
      case 'external-bots':
        out = state.mode.emptyScenarios ? [] : [...state.scenarios.values()].map((s) => ({
          idBot: s.idBot, name: s.name, ...(s.description ? { description: s.description } : {}),
          editorUrl: state.mode.relativeEditorUrl ? `/scenarios/${encodeURIComponent(s.idBot)}/edit` : s.editorUrl,
        }));
        break;
      case 'bot-put':
      case 'bot-get': {
        if (route.endpoint === 'bot-put' && body) {
          const prev = state.bots.get(idOperator!);
          state.bots.set(idOperator!, { write: body, createdAt: prev?.createdAt ?? nowIso(), updatedAt: nowIso(), idWebsite: query.idWebsite });
        }
        const b = state.bots.get(idOperator!);
        if (!b) { finish(404); return reply.code(404).send({ error: 'unknown_bot' }); }
        const s = state.scenarios.get(b.write?.external?.idBot);
        // putAnswersOwnId / getNameAsIdBot: the Bot answered under another id than the one asked for (each on one endpoint only).
        const ownId = () => { if (!state.ownBotIds.has(idOperator!)) state.ownBotIds.set(idOperator!, `bot-${state.ownBotIds.size + 1}`); return state.ownBotIds.get(idOperator!)!; };
        const answeredOperator = route.endpoint === 'bot-put' && state.mode.putAnswersOwnId ? ownId() : idOperator;
        const answeredBot = route.endpoint === 'bot-get' && state.mode.getNameAsIdBot && s ? s.name : b.write?.external?.idBot;
        out = { idOperator: answeredOperator, external: { idBot: answeredBot, ...(s ? { name: s.name, description: s.description } : {}), editorUrl: s?.editorUrl ?? 'https://editor.example/unknown' }, createdAt: b.createdAt, updatedAt: b.updatedAt, ...extra() };
        break;
      }
      case 'availability':
        out = state.mode.misspelledAvailability ? [{ strategy: 'customAvailability', available: true }] : mat(override?.availability ?? scenario?.availability ?? [{ strategy: 'notAvailable' }]);
        break;
      case 'first-messages':
        out = { replies: mat(override?.firstMessages ?? scenario?.firstMessages ?? []) };
        break;
      case 'conversation-create': {
        const now = nowIso();
        // ownIds: the connector's own id, joined by the service and used on every later call (G23).
        const answered = state.mode.ownIds ? state.nextOwnId() : idConversation;
        // One record under both ids (the service's and the connector's own), so what is remembered of it is shared.
        const record = { idOperator: String(idOperator), createdAt: now, memory: newMemory() };
        if (state.mode.leakVariablesAfterClick && state.leaked.has(String(idOperator))) {
          record.memory.inherited = state.leaked.get(String(idOperator));
          state.leaked.delete(String(idOperator));
        }
        if (answered) state.conversations.set(answered, record);
        if (idConversation && answered !== idConversation) state.conversations.set(idConversation, record);
        state.lastOpened = answered;
        out = { idConversation: answered, idOperator: String(idOperator), replies: [], createdAt: now, updatedAt: now, ...extra() };
        break;
      }
      case 'messages': {
        const now = nowIso();
        let replies: Reply[] = [];
        let variables: Array<{ key: string; value: string }> | undefined;
        const loops = fault?.replyToOperator === true;
        if (role === 'visitor' || loops) {
          let t = role === 'visitor' ? text ?? '' : '';
          if (state.mode.sharedState && role === 'visitor') {
            // The bug: one variable for every conversation, read after an await (another conversation may have written it).
            state.lastText = t;
            await new Promise((r) => setTimeout(r, 50));
            t = state.lastText;
          }
          if (role !== 'visitor') replies = [{ type: 'message', payload: { contentType: 'text', value: 'Echo of an operator message (a looping connector).' } }];
          else if (script && t === script.text) { replies = script.replies; variables = script.variables; }
          else if (script?.then?.[t]) replies = script.then[t]!;
          else {
            const r = scenario?.responses.find((x) => x.text === t);
            replies = r?.replies ?? scenario?.fallback ?? [];
            variables = r?.variables;
          }
        }
        replies = mat(replies);
        if (role === 'visitor') {
          const v = asVersion(state.version, text ?? '', replies);
          replies = v.replies;
          if (v.delayMs) await new Promise((r) => setTimeout(r, v.delayMs));
        }
        if (memory && role === 'visitor') {
          if (typeof text === 'string' && memory.offered.includes(text)) {
            memory.clicked = true;
            if (state.mode.leakVariablesAfterClick && memory.firstText !== undefined) state.leaked.set(String(idOperator), [{ key: 'firstMessage', value: memory.firstText }]);
          }
          rememberAnswer(memory, replies as Array<Record<string, any>>);
          if (state.mode.leakVariablesAfterClick) {
            const kept = memory.inherited ?? (memory.firstText !== undefined ? [{ key: 'firstMessage', value: memory.firstText }] : []);
            variables = [...(variables ?? []).filter((v) => !kept.some((k) => k.key === v.key)), ...kept];
          }
        }
        if (memory && role === 'operator' && state.mode.operatorReplyAfterClick && memory.clicked && !(typeof text === 'string' && memory.sent.has(text))) replies = [AFTER_CLICK_REPLY];
        if (fault?.longText) replies = replies.map((r) => (r.type === 'message' && (r.payload as any)?.contentType === 'text' ? { ...r, payload: { contentType: 'text', value: LONG_TEXT } } : r));
        const answeredId = state.mode.wrongConversation && state.lastOpened ? state.lastOpened : idConversation;
        out = { idConversation: answeredId, idOperator: String(idOperator), replies, ...(variables ? { variables } : {}), createdAt: conv?.createdAt ?? now, updatedAt: now, ...extra() };
        break;
      }
    }
    finish(200, out);
    return reply.send(out);
  }

  for (const [method, url] of [['GET', '/external-bots'], ['GET', '/bots/:id/conversation-first-messages'], ['PUT', '/bots/:id'], ['GET', '/bots/:id'],
    ['GET', '/availability-strategies'], ['POST', '/conversations'], ['POST', '/conversations/:id/messages']] as const) app.route({ method, url, handler: handle });

  app.get('/images/card.png', async (_req, reply) => reply.type('image/png').send(png));

  // ---- control API ----
  app.post('/_control/reset', async () => { state.reset(); return { ok: true }; });
  app.post<{ Body: any }>('/_control/scenario', async (req, reply) => {
    const b = typeof req.body === 'string' ? JSON.parse(req.body || '{}') : req.body ?? {};
    if (typeof b.text === 'string') {
      if (!Array.isArray(b.replies)) return reply.code(400).send({ error: 'replies (array) required with text' });
      state.scripts.set(b.text, { text: b.text, replies: b.replies, variables: b.variables, then: b.then, faults: b.faults });
      return { ok: true, text: b.text };
    }
    if (typeof b.idOperator === 'string') {
      const prev = state.operatorOverrides.get(b.idOperator) ?? {};
      const next = { ...prev, ...(b.firstMessages ? { firstMessages: b.firstMessages } : {}), ...(b.availability ? { availability: b.availability } : {}) };
      if (b.clear) state.operatorOverrides.delete(b.idOperator); else state.operatorOverrides.set(b.idOperator, next);
      return { ok: true, idOperator: b.idOperator };
    }
    // A scenario listed besides those of the folder, a copy of one of them: load runs bind one bot agent per scenario (the spec's
    // rule), so many bots need as many scenarios. Gone with the next reset.
    if (typeof b.idBot === 'string' && typeof b.copyOf === 'string') {
      const from = state.scenarios.get(b.copyOf);
      if (!from) return reply.code(400).send({ error: `copyOf: no scenario ${JSON.stringify(b.copyOf)} (listed: ${[...state.scenarios.keys()].join(', ')})` });
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(b.idBot)) return reply.code(400).send({ error: 'idBot: 1 to 64 letters, digits, _ or -' });
      state.scenarios.set(b.idBot, { ...from, idBot: b.idBot, name: typeof b.name === 'string' ? b.name : `${from.name} (${b.idBot})` });
      return { ok: true, idBot: b.idBot };
    }
    return reply.code(400).send({ error: 'give {text, replies, variables?, then?, faults?}, {idOperator, firstMessages?, availability?, clear?} or {idBot, copyOf, name?}' });
  });
  app.post<{ Body: any }>('/_control/faults', async (req, reply) => {
    const b = typeof req.body === 'string' ? JSON.parse(req.body || '{}') : req.body ?? {};
    if (b.clear) { state.faults = state.faults.filter((f) => (b.idOperator && f.idOperator !== b.idOperator) || (b.endpoint && f.endpoint !== b.endpoint)); return { ok: true, faults: state.faults.length }; }
    if (!ENDPOINTS.includes(b.endpoint)) return reply.code(400).send({ error: `endpoint must be one of ${ENDPOINTS.join(', ')}` });
    const { endpoint, idOperator, text, ...fault } = b;
    state.faults.unshift({ endpoint, idOperator, text, fault });
    return { ok: true };
  });
  const filter = (q: Record<string, string>) => (r: RequestRecord) =>
    (!q.endpoint || r.endpoint === q.endpoint) && (!q.path || r.path.includes(q.path)) && (!q.idConversation || r.idConversation === q.idConversation)
    && (!q.idOperator || r.idOperator === q.idOperator) && (!q.role || r.role === q.role) && (!q.text || r.text === q.text);
  app.get<{ Querystring: Record<string, string> }>('/_control/requests', async (req) => {
    const since = Number(req.query.since ?? 0);
    return { now: Date.now(), lastSeq: state.log.at(-1)?.seq ?? 0, requests: state.log.filter((r) => r.seq > since && filter(req.query)(r)) };
  });
  app.get<{ Querystring: Record<string, string> }>('/_control/wait', async (req, reply) => {
    const timeoutMs = Math.min(Number(req.query.timeoutMs ?? 10_000), 110_000);
    const r = await state.waitFor(filter(req.query), Number(req.query.since ?? 0), timeoutMs);
    if (!r) return reply.code(408).send({ error: 'timeout', message: `no request matching ${JSON.stringify(req.query)} within ${timeoutMs} ms` });
    return { request: r };
  });
  app.get('/_control/bots', async () => Object.fromEntries(state.bots));
  app.post<{ Body: any }>('/_control/mode', async (req, reply) => {
    const b = typeof req.body === 'string' ? JSON.parse(req.body || '{}') : req.body ?? {};
    const valued = VALUED_MODES as Record<string, (v: unknown) => boolean>;
    const bad = Object.entries(b ?? {}).filter(([k, v]) => (valued[k] ? !valued[k]!(v) : !(MODE_KEYS as readonly string[]).includes(k) || typeof v !== 'boolean'));
    if (!b || typeof b !== 'object' || Array.isArray(b) || bad.length) return reply.code(400).send({ error: `body must be an object of booleans among ${MODE_KEYS.join(', ')}, failOnVisitorMessage (integer 1-1000) or crashOnCharacters (a class of fake-connector/hidden-bugs.ts)${bad.length ? `; not accepted: ${bad.map(([k]) => k).join(', ')}` : ''}` });
    state.mode = { ...state.mode, ...b };
    return { ok: true, mode: state.mode };
  });
  // Endpoint-4 interval errors since the last reset (benchmarks): `prefix` keeps bots whose idOperator starts with it, `exclude` drops them.
  app.post('/_control/intervals/reset', async () => { state.intervals.reset(); return { ok: true }; });
  app.get<{ Querystring: Record<string, string> }>('/_control/intervals', async (req) => {
    const { prefix, exclude } = req.query;
    return state.intervals.summary((id) => (!prefix || id.startsWith(prefix)) && (!exclude || !id.startsWith(exclude)));
  });
  app.post<{ Body: any }>('/_control/version', async (req, reply) => {
    const b = typeof req.body === 'string' ? JSON.parse(req.body || '{}') : req.body ?? {};
    if (!CONNECTOR_VERSIONS.includes(b.version)) return reply.code(400).send({ error: `version must be one of ${CONNECTOR_VERSIONS.join(', ')}` });
    state.version = b.version;
    return { ok: true, version: state.version };
  });

  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  const host = opts.host && opts.host !== '127.0.0.1' ? (opts.host.includes(':') ? `[${opts.host}]` : opts.host) : '127.0.0.1';
  url = `https://${host}:${port}`;
  return { url, controlUrl: `${url}/_control`, controlToken, state, close: async () => { await app.close(); } };
}
