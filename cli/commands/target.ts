// `ces target init`: writes a target file from flags, pre-flights it, and prints which clauses `ces test` will judge against it.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { ROOT } from '../../lib/paths.js';
import { loadClauses } from '../../lib/catalogue.js';
import { listChecks } from '../../lib/list-checks.js';
import { CAPABILITIES, lackedParts, lacksReason, validateTarget, TargetError, type Target, type TargetPart } from '../../lib/target.js';
import { coverageOf, coverageLines } from '../../lib/coverage.js';
import { UsageError } from '../usage.js';
import { preflightOrStop } from '../preflight-stop.js';

interface InitArgs {
  out: string; force: boolean; preflight: boolean;
  'base-url': string; 'rest-base-url'?: string; 'rest-ha-base-url'?: string; 'graphql-url'?: string;
  'api-key': string[]; user: string[]; 'ca-file'?: string; 'connector-url'?: string; 'sink-url'?: string;
  'sim-url'?: string; 'sim-token'?: string; 'platform-url'?: string; capabilities?: string;
}

/** `[client_id:]key` → {client_id, key}; without an id, clients are numbered 1, 2, ... in the order given. */
function parseKey(v: string, i: number): { client_id: number; key: string } {
  const m = /^(\d+):(.+)$/.exec(v);
  if (m) return { client_id: Number(m[1]), key: m[2]! };
  if (!v) throw new UsageError(`--api-key #${i + 1} is empty (accepted: KEY or CLIENT_ID:KEY)`);
  return { client_id: i + 1, key: v };
}

/** `[client_id:]username:password` → a user; without an id, the n-th user belongs to the client of the n-th key. */
function parseUser(v: string, i: number, keys: Array<{ client_id: number }>): { client_id: number; username: string; password: string } {
  const m = /^(?:(\d+):)?([^:]+):(.+)$/.exec(v);
  if (!m) throw new UsageError(`--user ${JSON.stringify(v.replace(/:.*/, ':***'))} is not USERNAME:PASSWORD (accepted: USERNAME:PASSWORD or CLIENT_ID:USERNAME:PASSWORD)`);
  return { client_id: m[1] ? Number(m[1]) : keys[i]?.client_id ?? i + 1, username: m[2]!, password: m[3]! };
}

export function targetFromFlags(a: InitArgs): Target {
  const base = a['base-url'].replace(/\/+$/, '');
  const keys = a['api-key'].map(parseKey);
  if (!keys.length) throw new UsageError('give at least one --api-key (the REST API key of a client)');
  const users = a.user.map((u, i) => parseUser(u, i, keys));
  if (!users.length) throw new UsageError('give at least one --user USERNAME:PASSWORD (a login of the first client, for GraphQL)');
  const capabilities = (a.capabilities ?? '').split(',').map((c) => c.trim()).filter(Boolean);
  const raw: Record<string, unknown> = {
    base_url: base,
    rest_base_url: a['rest-base-url'] ?? `${base}/api/2`,
    ...(a['rest-ha-base-url'] ? { rest_ha_base_url: a['rest-ha-base-url'] } : {}),
    graphql_url: a['graphql-url'] ?? `${base}/graphql`,
    api_key: keys[0]!.key,
    api_keys: keys,
    user: { username: users[0]!.username, password: users[0]!.password },
    users,
    ...(a['ca-file'] ? { ca_file: path.resolve(a['ca-file']) } : {}),
    capabilities,
    ...(a['sim-url'] ? { sim_url: a['sim-url'] } : {}),
    ...(a['sim-token'] ? { sim_token: a['sim-token'] } : {}),
    ...(a['platform-url'] ? { platform_url: a['platform-url'] } : {}),
    ...(a['connector-url'] ? { connector_url: a['connector-url'] } : {}),
    ...(a['sink-url'] ? { sink_url: a['sink-url'] } : {}),
  };
  try { return validateTarget(raw, 'from the flags'); } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message.replace(/"([a-z_]+)"/, (_all, f: string) => `"${f}" (--${f.replace(/_url$/, '-url').replace(/_/g, '-')})`));
    throw e;
  }
}

/** The vendor-check suites judge the target's fake partners: they need them though their checks declare nothing. */
const SUITE_NEEDS: Record<string, TargetPart[]> = { 'connector-check': ['connector_url'], 'receiver-check': ['sink_url'] };

/** What `ces test` will judge against a target, from the checks' declared needs (a check may still skip at run time on a condition of its own). */
export async function predictCoverage(target: Target) {
  const listed = listChecks();
  const checks = listed.map((c) => {
    const lacked = lackedParts(target, [...c.needs, ...(SUITE_NEEDS[c.project] ?? [])]);
    return { clauses: c.clauses, outcome: lacked.length ? 'skipped' : 'passed', reason: lacked.length ? lacksReason(lacked) : undefined, project: c.project };
  });
  const verdicts = loadClauses().filter((c) => !c.retired).map((c) => {
    const mine = checks.filter((k) => k.clauses.includes(c.id));
    return { id: c.id, verdict: mine.some((k) => k.outcome === 'passed') ? 'pass' : mine.length ? 'skipped' : 'not-run' };
  });
  return coverageOf(checks, verdicts);
}

export const targetCommand: CommandModule<{}, {}> = {
  command: 'target <action>',
  describe: 'Write and check target files (`ces target init --help`)',
  builder: (y) => y.command<InitArgs>({
    command: 'init',
    describe: 'Write a target file from flags, pre-flight it (URLs, TLS, keys, users, capabilities) and print what `ces test` will judge',
    builder: (yy) => yy
      .option('out', { type: 'string', default: 'target.json', describe: 'File to write (mode 600: it holds keys and passwords)' })
      .option('force', { type: 'boolean', default: false, describe: 'Overwrite the file if it exists' })
      .option('preflight', { type: 'boolean', default: true, describe: 'Pre-flight the target (--no-preflight: only write it)' })
      .option('base-url', { type: 'string', demandOption: true, describe: 'The service\'s base URL (token endpoint at {base}/oauth2/token)' })
      .option('rest-base-url', { type: 'string', describe: 'REST API v2 base (default {base-url}/api/2)' })
      .option('rest-ha-base-url', { type: 'string', describe: 'REST API v2 base of the high-availability platform' })
      .option('graphql-url', { type: 'string', describe: 'GraphQL endpoint (default {base-url}/graphql)' })
      .option('api-key', { type: 'string', array: true, default: [] as string[], describe: 'A client\'s REST key, KEY or CLIENT_ID:KEY (repeatable; two clients enable the isolation checks)' })
      .option('user', { type: 'string', array: true, default: [] as string[], describe: 'A login, USERNAME:PASSWORD or CLIENT_ID:USERNAME:PASSWORD (repeatable; the n-th user belongs to the n-th key\'s client)' })
      .option('ca-file', { type: 'string', describe: 'PEM file of the CA that signed the service\'s certificates' })
      .option('connector-url', { type: 'string', describe: 'A fake connector the service\'s bots call (`ces serve` runs one)' })
      .option('sink-url', { type: 'string', describe: 'A webhook sink the service can reach (`ces sink`)' })
      .option('sim-url', { type: 'string', describe: 'The simulation API (capability sim)' })
      .option('sim-token', { type: 'string', describe: 'Bearer token of the simulation API and of the fakes\' control APIs' })
      .option('platform-url', { type: 'string', describe: 'The platform API of gap G17 (capability platform)' })
      .option('capabilities', { type: 'string', describe: `Comma list among ${CAPABILITIES.join(', ')}` })
      .example('$0 target init --base-url https://ces.staging.example --api-key 1:KEY1 --api-key 2:KEY2 --user 1:admin@one.example:PW1 --user 2:admin@two.example:PW2 --ca-file ca.pem', 'a staging service without test adapters'),
    handler: async (a) => {
      const target = targetFromFlags(a);
      if (fs.existsSync(a.out) && !a.force) throw new UsageError(`${a.out} exists: add --force to overwrite it, or --out another file`);
      fs.writeFileSync(a.out, JSON.stringify({ $schema: path.join(ROOT, 'fixtures', 'schemas', 'harness', 'target.json'), ...target }, null, 2) + '\n', { mode: 0o600 });
      fs.chmodSync(a.out, 0o600);
      console.log(`ces target init: wrote ${a.out} (mode 600: it holds keys and passwords)`);
      if (a.preflight) (await preflightOrStop(target, a.out)).remove();
      const cov = await predictCoverage(target);
      console.log(`\nwhat \`ces test --target ${a.out}\` will judge (from the checks' declared needs):`);
      console.log(coverageLines(cov).join('\n'));
      for (const u of cov.notRun.slice(0, 3)) console.log(`  not run: ${u.id}: ${u.why}`);
      if (cov.notRun.length > 3) console.log(`  ... ${cov.notRun.length - 3} more not run (same reason)`);
    },
  }).demandCommand(1, 'Name an action: init'),
  handler: () => {},
};
