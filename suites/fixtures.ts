// Fixtures of the vendor-check suites (connector-check, receiver-check), and the concerns of suites/fixtures/ re-exported for them.
// Other suites import only the concern they need from suites/fixtures/: target.ts, sim.ts, partners.ts, clock.ts, evidence.ts.
import { test as base } from './fixtures/target.js';
import { annotateSeverities } from './fixtures/evidence.js';
import { httpBlocker } from '../check/settings.js';

export { test, expect, currentTarget, needs, requirePart, expectSchema, Api, type RestCall, type AuthWay } from './fixtures/target.js';
export { clauses, allureAnnotations, annotateSeverities } from './fixtures/evidence.js';

/**
 * Set-up shared by the vendor checks (connector, receiver): skips, with the reason, when there is no partner URL, and when
 * the URL is plain http (the check of the HTTPS clause itself still runs and judges it); returns the partner's settings.
 */
export function checkedPartner<S extends { url: string; allowHttp: boolean }>(missing: string | undefined, settings: () => S, httpsClause: string): S {
  annotateSeverities();
  base.info().skip(missing !== undefined, missing);
  const s = settings();
  const blocker = base.info().tags.includes('@' + httpsClause) ? undefined : httpBlocker(s.url, s.allowHttp, httpsClause);
  base.info().skip(blocker !== undefined, blocker);
  return s;
}

