// Builds a transcript from a conversation held through the service: the simulation API's view (what was shown, service events) and its connector exchanges (what the connector answered, how fast).
import { LIMITS } from '../lib/limits.js';
import { toolVersion } from '../lib/landing.js';
import { TRANSCRIPT_FORMAT, formatDuration, type Reply, type Transcript, type Turn, type VisitorTurn } from './format.js';
import { FAILURE_EVENTS, SYSTEM_EVENTS, failureText, normaliseReplies, normaliseVariables, type NormaliseContext } from './normalise.js';

/** `GET {sim_url}/conversations/{id}` (the fields used here). */
export interface ServiceView {
  conversationId: string;
  websiteId?: number | string;
  state: string;
  /** The reference implementation's phase (`bot`, `transferring`, `human`, ...), when the target tells. */
  phase?: string;
  botOperatorId?: number | null;
  transcript: Array<{ role: string; payload: any; quickReplies?: Array<{ value?: unknown }>; at: string }>;
  failures?: Array<{ endpoint: string; kind: string; reason: string; at: string }>;
  pendingTimers?: Array<{ kind: string; due: string }>;
}
/** `GET {sim_url}/conversations/{id}/exchanges` items (the reference implementation's extension). */
export interface ServiceExchange { endpoint: string; requestBody: string | null; responseBody: string | null; status: number | null; ms: number; failure: string | null }

/** Where each input of the visitor started, in the view's transcript and failure lists (the driver knows; the chat page derives them). */
export type Mark =
  | { kind: 'visitor'; text: string; quickReply: boolean; entries: number; failures: number }
  | { kind: 'wait'; ms: number; entries: number; failures: number };

export interface TranscriptMeta {
  name: string;
  by: string;
  connectorUrl: string;
  rules: NormaliseContext['rules'];
  idBot: string | null;
  pseudo?: string;
  language?: string;
  websiteId: string;
  routingRule?: string;
}

/** A connector URL as a transcript keeps it: user-info and query values (credentials some set-ups put there) never written. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = ''; u.password = '';
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, '***');
    return u.toString().replace(/\/$/, '');
  } catch { return url; }
}

/** The failure of a visitor turn no bot answered (the conversation went to a human operator). */
export const NO_BOT = 'no bot took the conversation';

const json = (s: string | null): any => { try { return s ? JSON.parse(s) : undefined; } catch { return undefined; } };
const roleOf = (ex: ServiceExchange): string | undefined => json(ex.requestBody)?.message?.author?.role;
const displayed = (e: ServiceView['transcript'][number]): Reply => ({
  type: 'message', payload: e.payload,
  ...(e.quickReplies?.length ? { quickReplies: e.quickReplies.map((q) => q?.value) } : {}),
});

/** The inputs of a conversation nobody scripted (chat page): each visitor message, a quick-reply click when it repeats a value just offered, a wait where inactivity closed it. */
export function marksOf(view: ServiceView): Mark[] {
  const marks: Mark[] = [];
  const failures = view.failures ?? [];
  const failuresBefore = (at: string) => failures.filter((f) => f.at < at).length;
  let offered: unknown[] = [];
  view.transcript.forEach((e, i) => {
    if (e.role === 'bot' && e.quickReplies?.length) offered = e.quickReplies.map((q) => q?.value);
    if (e.role === 'visitor') {
      const text = String(e.payload?.value ?? '');
      marks.push({ kind: 'visitor', text, quickReply: offered.includes(text), entries: i, failures: failuresBefore(e.at) });
      offered = [];
    }
    if (e.role === 'system' && e.payload?.value === 'INACTIVITY_CLOSE') marks.push({ kind: 'wait', ms: LIMITS.botInactivityMs, entries: i, failures: failuresBefore(e.at) });
  });
  return marks;
}

/**
 * The transcript of one conversation. With `exchanges` the bot turns hold the connector's answers as received (awaits,
 * transfers, closes, variables) and their measured times; without (a target that does not expose them) they hold what
 * was displayed, and `displayedOnly` says so.
 */
export function buildTranscript(view: ServiceView, exchanges: ServiceExchange[] | undefined, meta: TranscriptMeta, marks: Mark[] = marksOf(view)): { transcript: Transcript; displayedOnly: boolean } {
  const ctx: NormaliseContext = { connectorUrl: meta.connectorUrl, rules: meta.rules };
  const entries = view.transcript;
  const failures = view.failures ?? [];
  const turns: Turn[] = [];

  const firstVisitor = entries.findIndex((e) => e.role === 'visitor');
  const first = exchanges?.find((x) => x.endpoint === 'first-messages');
  if (exchanges) {
    const answer = json(first?.responseBody ?? null);
    turns.push({ firstMessages: first?.failure ? [] : normaliseReplies(answer?.replies, ctx), ...(first ? { ms: Math.round(first.ms) } : {}), ...(first?.failure ? { failure: failureText(first.failure, first.status)! } : {}) });
  } else {
    turns.push({ firstMessages: entries.slice(0, firstVisitor < 0 ? entries.length : firstVisitor).filter((e) => e.role === 'bot').map(displayed) });
  }

  const create = exchanges?.find((x) => x.endpoint === 'conversation-create');
  const answers = (exchanges ?? []).filter((x) => x.endpoint === 'messages' && roleOf(x) === 'visitor');
  let visitorIndex = 0;
  marks.forEach((m, k) => {
    const next = marks[k + 1];
    const range = entries.slice(m.entries, next ? next.entries : entries.length);
    const events = [
      ...range.filter((e) => e.role === 'system').map((e) => SYSTEM_EVENTS[String(e.payload?.value)] ?? String(e.payload?.value)),
      ...failures.slice(m.failures, next ? next.failures : failures.length).flatMap((f) => (FAILURE_EVENTS[f.kind] ? [FAILURE_EVENTS[f.kind]!] : [])),
    ];
    if (m.kind === 'wait') {
      turns.push({ wait: formatDuration(m.ms), ...(events.length ? { events } : {}) });
      return;
    }
    const turn: VisitorTurn = { visitor: m.text, ...(m.quickReply ? { quickReply: true } : {}), bot: [] };
    if (exchanges) {
      const ex = answers[visitorIndex];
      const isFirstInput = visitorIndex === 0;
      const createFailed = isFirstInput && create?.failure;
      if (ex) {
        turn.ms = Math.round(ex.ms);
        const body = json(ex.responseBody);
        if (ex.failure) turn.failure = failureText(ex.failure, ex.status)!;
        else turn.bot = normaliseReplies(body?.replies, ctx);
        const variables = { ...(isFirstInput ? normaliseVariables(json(create?.responseBody ?? null)?.variables) : {}), ...(ex.failure ? {} : normaliseVariables(body?.variables)) };
        if (Object.keys(variables).length) turn.variables = variables;
      } else if (createFailed) turn.failure = `endpoint 6: ${failureText(create!.failure, create!.status)}`;
      else turn.failure = view.botOperatorId ? 'no answer: endpoint 7 was not called' : NO_BOT;
    } else {
      turn.bot = range.filter((e) => e.role === 'bot').map(displayed);
    }
    if (events.length) turn.events = events;
    turns.push(turn);
    visitorIndex++;
  });

  return {
    transcript: {
      format: TRANSCRIPT_FORMAT,
      name: meta.name,
      recorded: { at: new Date().toISOString(), by: meta.by, tool: `ces ${toolVersion()}` },
      connector: { url: withoutCredentials(meta.connectorUrl) },
      bot: { idBot: meta.idBot, ...(meta.pseudo ? { pseudo: meta.pseudo } : {}), ...(meta.language ? { language: meta.language } : {}) },
      website: { id: meta.websiteId, ...(meta.routingRule ? { routingRule: meta.routingRule } : {}) },
      turns,
    },
    displayedOnly: !exchanges,
  };
}
