// The explorer's fast-check commands: traffic the service could send, each applicable only when the model (what the service knows) allows it, resolved to a concrete step when it runs.
import fc from 'fast-check';
import type { Faker } from '@faker-js/faker';
import type { Known, SessionRunner, SingleStep, Step } from './session.js';
import type { Finding } from './oracle.js';
import { operatorText, tokenOf, tokenSuffix, visitorBody, withToken, type TextBody } from './texts.js';

/** Conversations one session opens at most. */
export const CONVERSATIONS_MAX = 6;
/** Commands of one session at most (fast-check generates up to this many, shrinking removes them). */
export const COMMANDS_MAX = 40;

/** A property broken for the first time in this run (or the one being shrunk): ends the session as failed. */
export class FoundError extends Error {
  constructor(readonly finding: Finding) { super(`${finding.clause}: ${finding.message}`); }
}

/**
 * What the hunt is after: findings already reported are passed over (so the next bug is found), and while a failure is being
 * shrunk only its own key fails a session (so shrinking keeps the same bug).
 */
export interface Hunt { reported: Set<string>; pinned?: string }

export interface CommandSettings { faker: Faker; maxText: number; parallel: number; hunt: Hunt }

const open = (k: Known) => k.conversations.filter((c) => !c.closed);

/** Plays a step and throws for a finding the hunt is after. */
async function play(real: SessionRunner, step: Step, hunt: Hunt): Promise<void> {
  const rec = await real.play(step);
  for (const call of rec.calls) {
    for (const f of call.findings) {
      if (hunt.pinned ? f.key === hunt.pinned : !hunt.reported.has(f.key)) throw new FoundError(f);
    }
  }
}

type Cmd = fc.AsyncCommand<Known, SessionRunner, false>;
const show = (t: string) => JSON.stringify(t.length > 40 ? `${t.slice(0, 39)}…` : t);

class OpenCommand implements Cmd {
  constructor(private readonly suffix: string, private readonly text: TextBody, private readonly s: CommandSettings) {}
  check(k: Known) { return k.conversations.length < CONVERSATIONS_MAX; }
  async run(k: Known, real: SessionRunner) {
    const n = k.conversations.length + 1;
    const token = tokenOf(n, this.suffix);
    await play(real, { kind: 'open', conversation: `c${n}`, token, text: withToken(this.text, token, this.s.maxText) }, this.s.hunt);
  }
  toString() { return `open(${show(this.text.body)})`; }
}

/** A visitor message to one open conversation: a generated text (with its token) or a phrase the bot said. */
function visitorStep(k: Known, pick: number, text: TextBody | { phrase: number }, maxText: number): SingleStep | undefined {
  const list = open(k);
  if (!list.length) return undefined;
  const conv = list[pick % list.length]!;
  const body = 'phrase' in text ? k.phrases[text.phrase % Math.max(1, k.phrases.length)] : withToken(text, conv.token, maxText);
  return body === undefined ? undefined : { kind: 'visitor', conversation: conv.name, text: body };
}

class VisitorCommand implements Cmd {
  constructor(private readonly pick: number, private readonly text: TextBody, private readonly s: CommandSettings) {}
  check(k: Known) { return open(k).length > 0; }
  async run(k: Known, real: SessionRunner) { await play(real, visitorStep(k, this.pick, this.text, this.s.maxText)!, this.s.hunt); }
  toString() { return `visitor(${this.pick}, ${show(this.text.body)})`; }
}

class PhraseCommand implements Cmd {
  constructor(private readonly pick: number, private readonly phrase: number, private readonly s: CommandSettings) {}
  check(k: Known) { return open(k).length > 0 && k.phrases.length > 0; }
  async run(k: Known, real: SessionRunner) { await play(real, visitorStep(k, this.pick, { phrase: this.phrase }, this.s.maxText)!, this.s.hunt); }
  toString() { return `phrase(${this.pick}, ${this.phrase})`; }
}

class ClickCommand implements Cmd {
  constructor(private readonly pick: number, private readonly choice: number, private readonly s: CommandSettings) {}
  check(k: Known) { return open(k).some((c) => c.offered.length > 0); }
  async run(k: Known, real: SessionRunner) {
    const list = open(k).filter((c) => c.offered.length > 0);
    const conv = list[this.pick % list.length]!;
    await play(real, { kind: 'click', conversation: conv.name, text: conv.offered[this.choice % conv.offered.length]! }, this.s.hunt);
  }
  toString() { return `click(${this.pick}, ${this.choice})`; }
}

class EchoCommand implements Cmd {
  constructor(private readonly pick: number, private readonly s: CommandSettings) {}
  // The bot's messages shown before a close or a transfer are posted back too.
  check(k: Known) { return k.conversations.some((c) => c.pending.length > 0); }
  async run(k: Known, real: SessionRunner) {
    const list = k.conversations.filter((c) => c.pending.length > 0);
    const conv = list[this.pick % list.length]!;
    // The service posts the bot's messages back in the order they were shown.
    await play(real, { kind: 'echo', conversation: conv.name, payload: conv.pending[0] }, this.s.hunt);
  }
  toString() { return `echo(${this.pick})`; }
}

class OperatorCommand implements Cmd {
  constructor(private readonly pick: number, private readonly text: string, private readonly s: CommandSettings) {}
  check(k: Known) { return open(k).length > 0; }
  async run(k: Known, real: SessionRunner) {
    const list = open(k);
    await play(real, { kind: 'operator', conversation: list[this.pick % list.length]!.name, text: this.text }, this.s.hunt);
  }
  toString() { return `operator(${this.pick}, ${show(this.text)})`; }
}

class PollCommand implements Cmd {
  constructor(private readonly s: CommandSettings) {}
  check() { return true; }
  async run(_k: Known, real: SessionRunner) { await play(real, { kind: 'poll' }, this.s.hunt); }
  toString() { return 'poll'; }
}

/** Visitor messages to several open conversations at once (one command awaiting them together, never a scheduler). */
class TogetherCommand implements Cmd {
  constructor(private readonly texts: TextBody[], private readonly s: CommandSettings) {}
  check(k: Known) { return open(k).length > 1 && this.s.parallel > 1; }
  async run(k: Known, real: SessionRunner) {
    const list = open(k).slice(0, Math.min(this.s.parallel, this.texts.length));
    const steps: SingleStep[] = list.map((conv, i) => ({ kind: 'visitor', conversation: conv.name, text: withToken(this.texts[i]!, conv.token, this.s.maxText) }));
    await play(real, steps.length > 1 ? { kind: 'together', steps } : steps[0]!, this.s.hunt);
  }
  toString() { return `together(${this.texts.map((t) => show(t.body)).join(', ')})`; }
}

/** The commands of a session, weighted as conversations go: mostly visitor messages, clicks and echoes. */
export function sessionCommands(s: CommandSettings): fc.Arbitrary<Iterable<Cmd>> {
  const pick = fc.nat({ max: CONVERSATIONS_MAX - 1 });
  const text = visitorBody(s.faker, s.maxText);
  return fc.commands([
    fc.tuple(tokenSuffix(), text).map(([t, b]) => new OpenCommand(t, b, s)),
    fc.tuple(tokenSuffix(), text).map(([t, b]) => new OpenCommand(t, b, s)),
    fc.tuple(pick, text).map(([p, b]) => new VisitorCommand(p, b, s)),
    fc.tuple(pick, text).map(([p, b]) => new VisitorCommand(p, b, s)),
    fc.tuple(pick, fc.nat({ max: 59 })).map(([p, i]) => new PhraseCommand(p, i, s)),
    fc.tuple(pick, fc.nat({ max: 59 })).map(([p, i]) => new PhraseCommand(p, i, s)),
    fc.tuple(pick, fc.nat({ max: 9 })).map(([p, i]) => new ClickCommand(p, i, s)),
    fc.tuple(pick, fc.nat({ max: 9 })).map(([p, i]) => new ClickCommand(p, i, s)),
    pick.map((p) => new EchoCommand(p, s)),
    fc.tuple(pick, operatorText(s.faker)).map(([p, t]) => new OperatorCommand(p, t, s)),
    fc.constant(null).map(() => new PollCommand(s)),
    fc.array(text, { minLength: 2, maxLength: Math.max(2, s.parallel) }).map((ts) => new TogetherCommand(ts, s)),
  ], { maxCommands: COMMANDS_MAX, size: 'max' });
}
