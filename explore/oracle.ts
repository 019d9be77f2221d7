// The spec as the explorer's oracle: each call of a session judged under the clauses that speak of it, with the checker's own pure judgements (check/judge.ts, check/timing.ts).
import type { Exchange } from '../check/connector-client.js';
import { describe } from '../check/connector-client.js';
import { is2xx, refusedAuth, repliesOf } from '../check/evidence.js';
import { dateProblems, foreignTokens, longTexts, isConditionalError, isDateError, messageAnswerProblems, operatorReplies, replyProblems, schemaErrors, textsOf, transfersOf, unknownTransferRules } from '../check/judge.js';
import { LIMITS } from '../lib/limits.js';
import { LIMIT_OF, timingText, withinLimit } from '../check/timing.js';

/** The clauses the explorer judges, in the order the reports list them. */
export const EXPLORE_CLAUSES = [
  'CONN-JSON-01', 'CONN-TIME-01', 'CONN-EP4-01', 'CONN-EP5-01', 'CONN-EP5-02', 'CONN-EP6-01', 'CONN-EP6-02', 'CONN-CONV-DATES-01',
  'CONN-EP7-01', 'CONN-EP7-02', 'CONN-LOOP-01', 'CONN-LOOP-02', 'CONN-TEXT-01', 'CONN-TRANSFER-03', 'CONN-CONC-01',
] as const;
export type ExploreClause = (typeof EXPLORE_CLAUSES)[number];

/** One property broken by one call: its clause, what broke (`key`: the same bug found again has the same key), and the evidence. */
export interface Finding { clause: ExploreClause; key: string; message: string }

/** What a call was, for the oracle: the endpoint's role in the session and what the service knew when it sent it. */
export interface CallContext {
  /** `visitor` and `click` are visitor-role messages; `echo` the bot's own message posted back, `operator` another operator message. */
  kind: 'first-messages' | 'start' | 'visitor' | 'click' | 'echo' | 'operator' | 'poll';
  /** The conversation's name in the session (`c1`) and the id the connector answered on endpoint 6 (G23: joined). */
  conversation?: string;
  connectorId?: string;
  /** The tokens of the session's other conversations (G28: never in this conversation's answers). */
  others?: Array<{ name: string; token: string }>;
  /** The distribution rules given in the bot write body (transfers must name one). */
  rules: string[];
  /** G36: no bot was created (PUT failed): a refusal for the unknown idOperator is no evidence. */
  botCreated: boolean;
}

/** The clauses a call gave evidence for, and the properties it broke. */
export interface Judgement { judged: ExploreClause[]; findings: Finding[] }

const KIND_LABEL: Partial<Record<CallContext['kind'], string>> = { visitor: 'visitor message', click: 'quick-reply click', echo: "echo of the bot's message", operator: 'operator message' };

/** Judges one call; a call cancelled by the explorer itself (a shrinking step past its budget) is never judged. */
export function judgeCall(ex: Exchange, c: CallContext): Judgement {
  const judged = new Set<ExploreClause>();
  const findings: Finding[] = [];
  const fail = (clause: ExploreClause, kind: string, message: string) => { judged.add(clause); findings.push({ clause, key: `${clause}:${kind}`, message }); };
  const pass = (clause: ExploreClause) => judged.add(clause);
  // The path with the conversation's name for its id (ids change with every replay; the name does not).
  const shown = c.conversation && c.connectorId ? ex.path.replace(encodeURIComponent(c.connectorId), `{${c.conversation}}`) : ex.path;
  const what = `${ex.method} ${shown}${KIND_LABEL[c.kind] ? ` (${KIND_LABEL[c.kind]})` : ''}`;
  // A refusal of the call's credentials is CONN-AUTH-02's; for a bot that was not created (G36), any refusal says nothing.
  const noEvidence = ex.error === undefined && !is2xx(ex) && (refusedAuth(ex) || (!c.botCreated && ex.status! >= 400 && ex.status! < 500));
  if (noEvidence) return { judged: [], findings: [] };
  const answered = ex.error === undefined;
  if (answered && is2xx(ex)) {
    if (ex.json === undefined) fail('CONN-JSON-01', `${ex.endpoint}`, `${describe(ex)}: the answer is not JSON`);
    else pass('CONN-JSON-01');
  }
  const limitOf = (limit: number, clause: ExploreClause) => {
    if (!answered || withinLimit(ex.ms, limit)) { if (answered) pass(clause); else fail(clause, `no-answer-${ex.endpoint}`, `${timingText(what, ex.ms, limit, ex.error)}`); return; }
    fail(clause, `late-${ex.endpoint}`, timingText(what, ex.ms, limit));
  };
  const mustAnswer = (clause: ExploreClause): boolean => {
    if (!answered) return false;
    if (!is2xx(ex)) { fail(clause, `status-${ex.status}`, `${what} ${describe(ex).replace(`${ex.method} ${ex.path} `, '')}`); return false; }
    return true;
  };
  switch (c.kind) {
    case 'poll': {
      limitOf(LIMIT_OF.config, 'CONN-TIME-01');
      if (!mustAnswer('CONN-EP4-01')) break;
      const errors = schemaErrors('connector/availability-strategies.json', ex.json, isConditionalError(['distributionRulesToCheck', 'availability']));
      if (errors) fail('CONN-EP4-01', 'schema', `${what}: ${errors}`); else pass('CONN-EP4-01');
      break;
    }
    case 'first-messages': {
      // The time of a refusal says nothing about the first messages (as the check judges CONN-EP5-01).
      if (!answered || is2xx(ex)) limitOf(LIMIT_OF.firstMessages, 'CONN-EP5-01');
      if (!mustAnswer('CONN-EP5-02')) break;
      const errors = [schemaErrors('connector/first-messages.json', ex.json), ...replyProblems(repliesOf(ex), 'first messages')].filter((e): e is string => !!e);
      if (errors.length) fail('CONN-EP5-02', 'schema', `${what}: ${errors.join('; ')}`); else pass('CONN-EP5-02');
      break;
    }
    case 'start': {
      limitOf(LIMIT_OF.config, 'CONN-TIME-01');
      if (!mustAnswer('CONN-EP6-01')) break;
      const errors = schemaErrors('connector/conversation.json', ex.json, isDateError);
      if (errors) fail('CONN-EP6-01', 'schema', `${what}: ${errors}`); else pass('CONN-EP6-01');
      if (Array.isArray((ex.json as any)?.replies)) {
        if (repliesOf(ex).length) fail('CONN-EP6-02', 'replies', `${what} answered ${repliesOf(ex).length} replies; it must answer replies: [] (endpoint 7 follows immediately)`); else pass('CONN-EP6-02');
      }
      dates(ex, what, fail, pass);
      break;
    }
    default: {
      // Endpoint 7: visitor messages (typed or clicked), echoes of the bot's own messages, other operator messages.
      limitOf(LIMIT_OF.message, 'CONN-EP7-01');
      const visitor = c.kind === 'visitor' || c.kind === 'click';
      if (visitor) { if (!mustAnswer('CONN-EP7-02')) break; } else if (!answered || !is2xx(ex)) break;
      if (ex.json === undefined) break;
      const problems = messageAnswerProblems(ex.json, what);
      if (problems.length) fail('CONN-EP7-02', 'schema', problems.join('; ')); else pass('CONN-EP7-02');
      dates(ex, what, fail, pass);
      if (!visitor && Array.isArray((ex.json as any)?.replies)) {
        const clause = c.kind === 'echo' ? 'CONN-LOOP-02' : 'CONN-LOOP-01';
        const types = operatorReplies(ex.json);
        if (types.length) fail(clause, 'replies', `${what} answered ${types.length} replies (${types.join(', ')}): the connector must reply only to visitor messages, else it loops on itself`);
        else pass(clause);
      }
      const replies = repliesOf(ex);
      const texts = textsOf(replies, what);
      if (texts.length) {
        const over = longTexts(texts);
        if (over.length) fail('CONN-TEXT-01', 'long', `texts over ${LIMITS.botTextMax} characters are not sent to the visitor: ${over.join('; ')}`); else pass('CONN-TEXT-01');
      }
      const transfers = transfersOf(replies, what);
      if (transfers.length) {
        const unknown = unknownTransferRules(transfers, c.rules);
        if (unknown.length) fail('CONN-TRANSFER-03', 'rule', `a transfer must name one of the rules given in the bot write body: ${unknown.join('; ')}`); else pass('CONN-TRANSFER-03');
      }
      // G28: the answer belongs to its conversation: its idConversation is the one the connector gave, and it carries no other conversation's words.
      const id = (ex.json as any)?.idConversation;
      const leaks = foreignTokens(ex.json, c.others ?? []);
      if (typeof id === 'string' && c.connectorId !== undefined && id !== c.connectorId) fail('CONN-CONC-01', 'id', `${what} answered idConversation ${JSON.stringify(id)}, not ${JSON.stringify(c.connectorId)} (the id of this conversation)`);
      else if (leaks.length) fail('CONN-CONC-01', 'token', `${what}: ${leaks.join('; ')}`);
      else if ((c.others ?? []).length) pass('CONN-CONC-01');
    }
  }
  return { judged: [...judged], findings };
}

function dates(ex: Exchange, what: string, fail: (c: ExploreClause, k: string, m: string) => void, pass: (c: ExploreClause) => void): void {
  const problems = dateProblems(ex.json, true);
  if (problems.length) fail('CONN-CONV-DATES-01', 'date', `${what}: ${problems.join('; ')}`); else pass('CONN-CONV-DATES-01');
}
