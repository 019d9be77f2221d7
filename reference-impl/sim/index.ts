// The simulation API (DESIGN.md, contract) under /sim: clock, deviations; other areas add their own /sim routes.
import type { FastifyPluginAsync } from 'fastify';
import { setMeta } from '../store/db.js';
import { UnknownDeviationError } from '../deviations.js';

const sim: FastifyPluginAsync = async (app) => {
  const { clock, deviations, db } = app.ces;

  app.get('/sim/clock', async () => ({ now: new Date(clock.now()).toISOString(), offsetMs: clock.offset }));

  app.post<{ Body: { ms?: unknown } }>('/sim/clock/advance', async (req, reply) => {
    const ms = req.body?.ms;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) {
      return reply.code(400).send({ error: 'invalid_request', message: 'body must be {"ms": <non-negative integer>}' });
    }
    clock.advance(ms);
    setMeta(db, 'clock_offset', String(clock.offset));
    return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offset };
  });

  app.get('/sim/deviations', async () => ({ ids: deviations.list() }));
  app.post<{ Body: { ids?: unknown } }>('/sim/deviations', async (req, reply) => {
    const ids = req.body?.ids;
    if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) {
      return reply.code(400).send({ error: 'invalid_request', message: 'body must be {"ids": ["<deviation id>", ...]}' });
    }
    try { deviations.set(ids as string[]); } catch (e) {
      if (e instanceof UnknownDeviationError) return reply.code(400).send({ error: 'unknown_deviation', message: e.message });
      throw e;
    }
    return { ids: deviations.list() };
  });
  app.delete('/sim/deviations', async () => { deviations.clear(); return { ids: [] }; });
};
export default sim;
