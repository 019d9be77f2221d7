// One clock for the reference implementation: real time plus an offset that /clock/advance moves; timers fire on either.
export type TimerHandle = { cancel(): void };

interface Timer { due: number; fn: () => void; real?: NodeJS.Timeout; done: boolean }

export class Clock {
  private offsetMs = 0;
  private timers = new Set<Timer>();

  constructor(offsetMs = 0) { this.offsetMs = offsetMs; }

  /** Milliseconds since the epoch, as the service sees it. */
  now(): number { return Date.now() + this.offsetMs; }
  date(): Date { return new Date(this.now()); }
  get offset(): number { return this.offsetMs; }

  /** Runs fn at clock time `due` (ms since epoch), in real time or when the clock is advanced past it. */
  at(due: number, fn: () => void): TimerHandle {
    const t: Timer = { due, fn, done: false };
    this.timers.add(t);
    this.arm(t);
    return { cancel: () => this.clear(t) };
  }

  /** Runs fn after `ms` of clock time. */
  after(ms: number, fn: () => void): TimerHandle { return this.at(this.now() + ms, fn); }

  /** Moves the clock forward and fires, in due order, every timer that became due. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('clock can only move forward');
    this.offsetMs += ms;
    const due = [...this.timers].filter((t) => t.due <= this.now()).sort((a, b) => a.due - b.due);
    for (const t of due) this.fire(t);
    for (const t of this.timers) this.arm(t);
  }

  /** Cancels every pending timer (shutdown). */
  stop(): void { for (const t of [...this.timers]) this.clear(t); }

  private arm(t: Timer) {
    if (t.real) clearTimeout(t.real);
    // setTimeout caps at ~24.8 days; re-arm in steps for longer waits.
    const wait = Math.min(Math.max(0, t.due - this.now()), 2 ** 31 - 1);
    t.real = setTimeout(() => (t.due <= this.now() ? this.fire(t) : this.arm(t)), wait);
  }

  private fire(t: Timer) {
    if (t.done) return;
    this.clear(t);
    try { t.fn(); } catch (err) { console.error('timer failed', err); }
  }

  private clear(t: Timer) {
    t.done = true;
    if (t.real) clearTimeout(t.real);
    this.timers.delete(t);
  }
}
