// Connector check of G28: scripts held alone, then at once; an answer belongs to its conversation (endpoint 7).
import { test, expect, clauses, attachExchanges, orNoBot } from './check-fixtures.js';
import { notJudged, notJudgedIf, reproduction } from '../verdicts.js';
import { ConnectorClient, describe } from '../../check/connector-client.js';
import { concurrentScripts } from '../../check/settings.js';
import { concurrencyProblems, holdAlone, holdTogether, soloDifference, type Held } from '../../check/concurrency.js';
import { agentFor, http } from '../../lib/http.js';
import { rerunCommand } from '../../check/reproduce.js';

const exchangesOf = (h: Held[]) => h.flatMap((c) => [c.start, ...c.steps.map((s) => s.exchange)]);

test('answers belong to their conversation when several are held at once', clauses('CONN-CONC-01'), async ({ connector, bot, target }) => {
  // Every step may take up to the 10 s limit: alone, once more alone, then at once.
  test.setTimeout(300_000);
  notJudgedIf(connector.conversations < 2, '--conversations 1: only one conversation at a time was held (a bot that answers at random cannot be compared)');
  const agent = agentFor(target.ca_file);
  const client = new ConnectorClient(connector, (req) => http(req, agent));
  const scripts = concurrentScripts(connector, target.reference === true);
  const failedOf = (h: Held[]) => exchangesOf(h).filter((ex) => ex.error !== undefined || (ex.status ?? 0) < 200 || (ex.status ?? 0) > 299);
  const alone: Held[] = [];
  // The first conversation held alone that fails decides the verdict (NOT JUDGED, naming its first failed call): the next ones
  // are not held, as against a connector that times out they would only wait 10 s per step for the same verdict.
  for (const s of scripts) {
    alone.push(await holdAlone(client, bot.idOperator, s));
    if (failedOf(alone).length) break;
  }
  const again = failedOf(alone).length ? undefined : await holdAlone(client, bot.idOperator, scripts[0]!);
  const heldAlone = again ? [...alone, again] : alone;
  await attachExchanges(`each script held alone (and the first one twice)${again ? '' : ', until one failed'}`, exchangesOf(heldAlone));
  const failed = failedOf(heldAlone);
  if (failed.length || !again) notJudged(orNoBot(bot, `a conversation held alone already failed (${describe(failed[0]!)}; see CONN-EP6-01, CONN-EP7-01).`));
  const random = soloDifference(alone[0]!, again);
  if (random) notJudged(`${random}: the bot answers at random, so concurrent answers cannot be compared; run with --conversations 1`);
  const together = await holdTogether(client, bot.idOperator, scripts);
  await attachExchanges(`the same ${scripts.length} scripts held at once`, exchangesOf(together));
  const problems = concurrencyProblems(alone, together);
  // Evidence: every answer at once came and matched its solo twin. A call without answer at once is a failure (its solo twin was answered).
  if (problems.length) reproduction(`${rerunCommand('CONN-CONC-01')}\n# the exchanges of each conversation, alone and at once, are attached to this check (evidence.html)`);
  expect(problems, `each answer must belong to its own conversation (G28): replies must not depend on what other conversations said: ${problems.join('; ')}`).toEqual([]);
});
