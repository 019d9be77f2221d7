// Interval errors of endpoint-4 polls per bot operator, counted as polls arrive (no request log needed: benchmarks poll thousands of bots).
export interface IntervalSummary {
  /** Bot operators polled at least twice in the window (an interval needs two polls). */
  bots: number; polls: number; intervals: number;
  meanIntervalMs: number | null; p50ErrorMs: number | null; p95ErrorMs: number | null; p99ErrorMs: number | null; maxErrorMs: number | null;
}

/** Keeps the last poll time of every bot operator and, since the last reset, each |interval − period| with its bot. */
export class PollIntervals {
  private last = new Map<string, number>();
  private errors: Array<{ id: string; interval: number }> = [];
  private polledSince = new Map<string, number>();

  constructor(private periodMs: number) {}

  note(idOperator: string, at: number): void {
    const prev = this.last.get(idOperator);
    this.last.set(idOperator, at);
    this.polledSince.set(idOperator, (this.polledSince.get(idOperator) ?? 0) + 1);
    if (prev !== undefined) this.errors.push({ id: idOperator, interval: at - prev });
  }

  /** Starts a new window: intervals that end after this moment count (the last poll of each bot is kept). */
  reset(): void { this.errors = []; this.polledSince.clear(); }

  /** Figures of the window for the bots `keep` selects. */
  summary(keep: (idOperator: string) => boolean = () => true): IntervalSummary {
    const intervals: number[] = [];
    const bots = new Set<string>();
    for (const e of this.errors) if (keep(e.id)) { intervals.push(e.interval); bots.add(e.id); }
    let polls = 0;
    for (const [id, n] of this.polledSince) if (keep(id)) polls += n;
    const errs = intervals.map((i) => Math.abs(i - this.periodMs)).sort((a, b) => a - b);
    const q = (p: number) => (errs.length ? errs[Math.min(errs.length - 1, Math.floor(p * errs.length))]! : null);
    return {
      bots: bots.size, polls, intervals: intervals.length,
      meanIntervalMs: intervals.length ? intervals.reduce((a, b) => a + b, 0) / intervals.length : null,
      p50ErrorMs: q(0.5), p95ErrorMs: q(0.95), p99ErrorMs: q(0.99), maxErrorMs: errs.length ? errs[errs.length - 1]! : null,
    };
  }
}
