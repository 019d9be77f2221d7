// docs/ci.md: every YAML block parses, each user has a GitHub Actions and a GitLab CI job doing what the issue asks, and every `ces` command in them is accepted by `ces` as written (the package test runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import yargs from 'yargs';
import { ROOT } from '../lib/paths.js';
import { COMMANDS } from '../cli/command-list.js';

interface Command { text: string; env: Record<string, string> }
interface Job { name: string; steps: Array<{ run?: string; uses?: string; env: Record<string, string> }>; commands: Command[]; artifacts?: { when?: string; paths?: string[]; reports?: { junit?: string } } }
interface Recipe { heading: string; system: 'github' | 'gitlab'; file: string; data: any; jobs: Job[] }

/** Thrown once a command's arguments are validated: what the test waits for. */
class Accepted extends Error {}

const recipes = async (): Promise<Recipe[]> => (await import(path.join(ROOT, 'scripts', 'ci-recipes.mjs'))).readRecipes();
const USERS = { 'Service team': 'test', 'Connector vendor': 'check', Release: 'load' } as const;
const userOf = (r: Recipe) => (Object.keys(USERS) as Array<keyof typeof USERS>).find((u) => r.heading.startsWith(u));

/** A command's words as the job's shell would pass them: its variables, and a placeholder for each secret it names. */
function words(c: Command): string[] {
  const placeholders = { CES_API_KEY_1: '1001:key-one', CES_API_KEY_2: '2001:key-two', CES_USER_1: '1001:a@one.example:pw1', CES_USER_2: '2001:b@two.example:pw2', CES_SECRET: 'signing-secret', CONNECTOR_SECRET: 'signing-secret' };
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...placeholders, ...c.env };
  const r = spawnSync('bash', ['-c', `eval "set -- $1"; printf '%s\\0' "$@"`, 'words', c.text.replace(/^npx ces /, '')], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('docs/ci.md: every YAML block parses; each user has one GitHub Actions and one GitLab CI job with its ces commands', async () => {
  const all = await recipes();
  assert.equal(all.length, 6);
  for (const user of Object.keys(USERS)) {
    const mine = all.filter((r) => userOf(r) === user);
    assert.deepEqual(mine.map((r) => r.system).sort(), ['github', 'gitlab'], `${user}: one job per CI system`);
    for (const r of mine) {
      assert.ok(r.jobs.length === 1 && r.jobs[0]!.commands.length > 0, `${r.heading}: one job running ces`);
      assert.ok(r.jobs[0]!.commands.some((c) => c.text.startsWith(`npx ces ${USERS[user as keyof typeof USERS]} `)), `${r.heading}: runs ces ${USERS[user as keyof typeof USERS]}`);
    }
  }
});

test('docs/ci.md: the service team gates on a baseline and publishes JUnit; the vendor checks every pull request; every job keeps reports/ even when it fails', async () => {
  for (const r of await recipes()) {
    const job = r.jobs[0]!;
    const user = userOf(r);
    if (user === 'Service team') assert.ok(job.commands.some((c) => / --target \S+/.test(c.text) && / --baseline \S+/.test(c.text)), `${r.heading}: ces test --target with a baseline`);
    if (r.system === 'github') {
      const keep = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
      const withKeep = r.data.jobs[job.name].steps.find((s: any) => s.uses?.startsWith('actions/upload-artifact@'));
      assert.ok(keep && withKeep.if === 'always()' && withKeep.with.path === 'reports/', `${r.heading}: reports/ kept as an artefact, always`);
      if (user === 'Service team') assert.ok(r.data.jobs[job.name].steps.some((s: any) => /junit/i.test(s.uses ?? '') && /junit\.xml/.test(s.with?.report_paths ?? '') && s.if === 'always()'), `${r.heading}: JUnit published`);
      if (user === 'Connector vendor') assert.ok('pull_request' in (Array.isArray(r.data.on) ? Object.fromEntries(r.data.on.map((o: string) => [o, 1])) : r.data.on), `${r.heading}: on every pull request`);
    } else {
      assert.equal(job.artifacts?.when, 'always', `${r.heading}: artefacts kept when the job fails`);
      assert.ok(job.artifacts?.paths?.includes('reports/') && /junit\.xml$/.test(job.artifacts?.reports?.junit ?? ''), `${r.heading}: reports/ kept, JUnit published`);
      if (user === 'Connector vendor') assert.match(JSON.stringify(r.data), /merge_request_event/, `${r.heading}: on every merge request`);
    }
  }
});

test('docs/ci.md: every ces command is accepted by ces as written (options, values and their checks; secrets as placeholders)', async () => {
  const seen = new Set<string>();
  for (const r of await recipes()) {
    for (const c of r.jobs.flatMap((j) => j.commands)) {
      const argv = words(c);
      const entry = COMMANDS[argv[0]!];
      assert.ok(entry, `${r.heading}: ces ${argv[0]} is a command`);
      const mod = await entry.load();
      // The command's own options and checks (yargs strict: an unknown option or a bad value fails); a middleware after validation
      // stops the run before any handler (of the command or of a nested one, as `target init`) does anything. What a handler checks
      // itself (`target init`'s key and user formats) is left to the package test, which runs the commands.
      // yargs goes on after a failed validation (exitProcess false): the first problem is kept.
      let problem: string | undefined;
      let accepted = false;
      const stop = () => { throw new Accepted(); };
      const said = (e: unknown, msg?: string) => { if (e instanceof Accepted) accepted = true; else problem ??= (e as Error | undefined)?.message ?? msg ?? 'failed'; };
      // Added after the command's builder, so it runs after the command's own checks (yargs runs `.check()` as a middleware too).
      const builder = (y: any) => (typeof mod.builder === 'function' ? mod.builder(y) : y.options(mod.builder ?? {})).middleware(stop, false);
      try { await yargs(argv).command({ ...mod, builder }).strict().exitProcess(false).fail((msg, err) => said(err, msg)).parseAsync(); } catch (e) { said(e); }
      assert.equal(problem, undefined, `${r.heading}: ${c.text}`);
      assert.ok(accepted, `${r.heading}: ${c.text}: validated up to the handler`);
      seen.add(argv[0]!);
    }
  }
  assert.deepEqual([...seen].sort(), ['check', 'load', 'setup', 'target', 'test']);
});
