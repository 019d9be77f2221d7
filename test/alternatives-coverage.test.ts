// Every REF clause that a conforming service could decide otherwise has an alternative (issue 23 item 3); the few that none could, with their reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clauseById, isAlternative, loadDeviations } from '../lib/catalogue.js';

const clauses = clauseById();
const deviations = loadDeviations();

/**
 * REF clauses that no alternative covers, each with the reason: no service under test could decide otherwise (the clause is the
 * harness's own, or already accepts every choice a service may make).
 */
const NO_ALTERNATIVE: Array<{ clauses: string[]; reason: string }> = [
  {
    clauses: ['CONSOLE-PAGE-01', 'CONSOLE-PAGE-02', 'CONSOLE-SEC-01', 'CONSOLE-MD-02', 'CONSOLE-SYS-01', 'CONSOLE-INS-01', 'CONSOLE-INS-02', 'CONSOLE-INS-03'],
    reason: 'the console pages belong to the harness (`ces serve`, decision D3), not to the service: a service under test has none',
  },
  {
    clauses: ['LOAD-REST-02', 'LOAD-GQL-02', 'LOAD-MSG-02', 'LOAD-WH-02'],
    reason: 'budgets of the reference implementation itself ("on the reference implementation"): how fast another service is, is no decision of docs/decisions.md',
  },
  {
    clauses: ['LOAD-REST-01', 'LOAD-GQL-01'],
    reason: 'judged by `ces load` (k6 thresholds), which the self-test does not run; a service that limits its rate (G19 decided it does not) shows there as a crossed threshold',
  },
  {
    clauses: ['BOT-SETUP-05', 'WH-SUB-02', 'WH-SUB-03', 'GQL-MUT-01', 'GQL-SETUP-01'],
    reason: 'the harness\'s adapters to set up a service (the platform API of G17: how it registers connectors and subscriptions, and refuses them; createConversationTag): a service with other ones does not declare the part, and the checks that need it are SKIP; what the spec itself asks of them (HTTPS only, one client\'s events only) is no decision (the status of a subscription created is one: webhooks-subscription-created-200)',
  },
  {
    clauses: ['REST-OAS-03'],
    reason: 'the reference implementation\'s answers against its own OpenAPI document (fixtures/openapi.json): against any other target the check is SKIP, so no other service takes a decision there; the document itself is REST-OAS-01\'s',
  },
  {
    clauses: ['WH-SUB-05'],
    reason: 'a subscription receiving event kinds it did not name is no decision: the subscriber names the kinds it registers for',
  },
  {
    clauses: ['REST-BAD-01'],
    reason: 'it already accepts every 4xx a service may choose; what it asks besides (a fail envelope, never 5xx) is the spec\'s rule for every failure',
  },
  {
    clauses: ['WH-EVT-11', 'WH-EVT-13'],
    reason: 'the deprecated kinds\' payloads are the spec\'s own listed shapes (Payload shapes); a service that does not send them is NOT JUDGED (G33), never reported, and one that sends them otherwise contradicts the listed fields (a fault, as webhooks-satisfaction-score-string is), so no other decision exists to mark',
  },
  {
    clauses: ['REST-STAT-04'],
    reason: 'the meanings of the indicators are the spec\'s table: the clause checks only that the values agree with the service\'s own listing of the same data, which every computation from stored data does (G14)',
  },
];

test('every REF clause that a conforming service could decide otherwise has an alternative; the others are listed with their reason', () => {
  const covered = new Set(deviations.filter(isAlternative).flatMap((d) => d.clauses));
  const excused = new Map(NO_ALTERNATIVE.flatMap((e) => e.clauses.map((c) => [c, e.reason] as const)));
  const ref = [...clauses.values()].filter((c) => c.severity === 'REF' && !c.retired).map((c) => c.id);
  assert.deepEqual(ref.filter((id) => !covered.has(id) && !excused.has(id)), [], 'REF clauses with no alternative and no reason');
  // The list stays true: each listed clause exists, is REF, and has no alternative after all.
  for (const [id] of excused) {
    assert.equal(clauses.get(id)?.severity, 'REF', `${id} in NO_ALTERNATIVE is not a REF clause of the catalogue`);
    assert.ok(!covered.has(id), `${id} has an alternative: take it off NO_ALTERNATIVE`);
  }
});
