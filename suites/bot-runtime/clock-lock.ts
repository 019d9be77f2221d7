// The suites' shared lock on the service clock, kept by the fake connector (`{connector_url}/_control/lock`): checks that move the clock take it exclusively.
import { agentFor, http } from '../../lib/http.js';
import type { Target } from '../../lib/target.js';

const post = (t: Target, path: string, body: unknown) =>
  http({ method: 'POST', url: `${t.connector_url}/_control/${path}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, agentFor(t.ca_file));

/** Holds the lock (`shared` for checks that rely on real-time timers, `exclusive` for checks that call /clock/advance) while `fn` runs. */
export async function withClockLock<T>(target: Target, owner: string, mode: 'shared' | 'exclusive', fn: () => Promise<T>): Promise<T> {
  if (!target.connector_url) return fn();
  await post(target, 'lock', { owner, mode, leaseMs: 150_000 });
  try { return await fn(); } finally { await post(target, 'unlock', { owner }); }
}
