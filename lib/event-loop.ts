// The event loop's delays of one thread (perf_hooks monitorEventLoopDelay): the longest block and the 99th percentile, in ms.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelay { maxMs: number; p99Ms: number }

/** Measures a loop from `start()` to `read()`: the loop of the thread that made it, or (thread-server.ts) of a worker thread. */
export interface LoopProbe { start(): Promise<void>; read(): Promise<LoopDelay> }

/** A probe of the calling thread's own loop (10 ms resolution: a block shorter than that is not worth naming). */
export function localLoopProbe(): LoopProbe {
  let histogram: IntervalHistogram | undefined;
  return {
    async start() {
      histogram?.disable();
      histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
    },
    async read() {
      const h = histogram;
      if (!h) return { maxMs: 0, p99Ms: 0 };
      // The histogram counts in ns; an empty one (no sample yet) says max 0.
      return { maxMs: Math.round(h.max / 1e5) / 10, p99Ms: Math.round(h.percentile(99) / 1e5) / 10 };
    },
  };
}
