// Simulation API, control of the service itself: the clock (read, advance within a bound) and the deviations switched on.
import type { FastifyInstance } from 'fastify';
import { LIMITS } from '../../lib/limits.js';
import { setMeta } from '../store/db.js';
import { UnknownDeviationError } from '../deviations.js';

/** The reason `ms` cannot advance the clock, or null: a finite integer, 0..LIMITS.simClockAdvanceMaxMs, keeping the clock a valid date. */
export function clockAdvanceError(ms: unknown, now: number): string | null {
  const accepted = `body must be {"ms": <integer of milliseconds, 0 to ${LIMITS.simClockAdvanceMaxMs} (400 days)>}`;
  if (typeof ms !== 'number' || !Number.isInteger(ms)) return `${accepted}; got ${JSON.stringify(ms) ?? 'nothing'}`;
  if (ms < 0 || ms > LIMITS.simClockAdvanceMaxMs) return `${accepted}; got ${ms}`;
  if (Number.isNaN(new Date(now + ms).getTime())) return `${accepted}; the clock would leave the dates JavaScript can represent`;
  return null;
}

export function registerSimControl(app: FastifyInstance): void {
  const { clock, deviations, db } = app.ces;

  app.get('/clock', async () => ({ now: new Date(clock.now()).toISOString(), offsetMs: clock.offset }));

  app.post<{ Body: { ms?: unknown } }>('/clock/advance', async (req, reply) => {
    const ms = req.body?.ms;
    // Validated before anything moves: a refused advance leaves the clock, the store and the next restart as they were.
    const error = clockAdvanceError(ms, clock.now());
    if (error) return reply.code(400).send({ error: 'invalid_request', message: error });
    // The offset is stored first, so a restart keeps the time even if a timer fired by the advance fails.
    setMeta(db, 'clock_offset', String(clock.offset + (ms as number)));
    clock.advance(ms as number);
    return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offset };
  });

  /** The deviations switched on, as the routes below answer them. */
  const switchedOn = () => ({ ids: deviations.list() });
  app.get('/deviations', async () => switchedOn());
  app.post<{ Body: { ids?: unknown } }>('/deviations', async (req, reply) => {
    const ids = req.body?.ids;
    if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) {
      return reply.code(400).send({ error: 'invalid_request', message: 'body must be {"ids": ["<deviation id>", ...]}' });
    }
    // set() checks every id against the catalogue before it replaces the active set.
    try { deviations.set(ids as string[]); } catch (e) {
      if (e instanceof UnknownDeviationError) return reply.code(400).send({ error: 'unknown_deviation', message: e.message });
      throw e;
    }
    // Recorded in the store: views kept while nothing was written (GET /operator/live) are read again under the new deviations.
    const on = switchedOn();
    setMeta(db, 'deviations', JSON.stringify(on.ids));
    return on;
  });
  app.delete('/deviations', async () => { deviations.clear(); setMeta(db, 'deviations', '[]'); return { ids: [] }; });
}
