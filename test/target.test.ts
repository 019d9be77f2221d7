// Target files: schema validation (one message naming the field and the accepted form), parts, and the pre-flight against a real stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lackedParts, lacksReason, partsOf, partsOfReason, validateTarget, TargetError, type Target } from '../lib/target.js';
import { preflight } from '../lib/preflight.js';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { ROOT } from '../lib/paths.js';

const good = { base_url: 'https://x', rest_base_url: 'https://x/api/2', graphql_url: 'https://x/graphql', api_key: 'k', user: { username: 'u', password: 'p' } };
const refused = (raw: unknown, re: RegExp) => assert.throws(() => validateTarget(raw, 't.json'), (e: Error) => e instanceof TargetError && re.test(e.message) && !e.message.includes('\n'));

test('target: each malformed field is one message naming the field and the accepted form', () => {
  refused({ ...good, graphql_url: undefined }, /^target file t\.json: "graphql_url" is missing \(accepted: the GraphQL endpoint, an absolute http\(s\) URL/);
  refused({ ...good, base_url: 'ftp://x' }, /"base_url" is "ftp:\/\/x" \(accepted: .*absolute http\(s\) URL/);
  refused({ ...good, api_kye: 'k' }, /unknown field "api_kye" \(accepted fields: base_url, .*api_keys/);
  refused({ ...good, api_keys: [{ client_id: 'one', key: 'k' }] }, /"api_keys\[0\]\.client_id" is "one" \(accepted: the client's id \(an integer\)\)/);
  refused({ ...good, user: { username: 'u' } }, /"user\.password" is missing/);
  refused({ ...good, capabilities: ['sim'] }, /"capabilities" lists "sim" but "sim_url" is missing/);
  refused({ ...good, capabilities: ['clock'] }, /"capabilities" lists "clock" without "sim"/);
  refused([], /must hold a JSON object/);
  refused({ ...good, ca_file: 'no-such-ca.pem' }, /"ca_file" no-such-ca.pem does not exist/);
});

test('target: defaults, sim_token accepted, and the ready info of the embedded stack is a valid target', async () => {
  const t = validateTarget({ ...good, sim_token: 's3cret-token', sim_url: 'https://x/sim', capabilities: ['sim'] });
  assert.deepEqual(t.api_keys, [{ client_id: 0, key: 'k' }]);
  assert.equal(t.sim_token, 's3cret-token');
  const stack = await startStack({ workDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ces-target-')) });
  try { assert.doesNotThrow(() => validateTarget(JSON.parse(JSON.stringify(stack.ready)), 'ready')); } finally { await stack.close(); }
});

test('target parts: what a bare target lacks, and skip reasons that name it', () => {
  const bare = validateTarget(good);
  assert.deepEqual([...partsOf(bare)], []);
  assert.deepEqual(lackedParts(bare, ['sim', 'connector_url', 'second_client_key']), ['sim', 'connector_url', 'second_client_key']);
  const reason = lacksReason(['sim', 'connector_url']);
  assert.equal(reason, 'target lacks capability sim, connector_url');
  assert.deepEqual(partsOfReason(reason), ['sim', 'connector_url']);
  assert.deepEqual(partsOfReason('target lacks sink_url (run `ces check webhook-receiver URL` to check a receiver)'), ['sink_url']);
  const two = validateTarget({ ...good, api_keys: [{ client_id: 1, key: 'a' }, { client_id: 2, key: 'b' }], users: [{ client_id: 1, username: 'u', password: 'p' }, { client_id: 2, username: 'v', password: 'q' }] });
  assert.deepEqual([...partsOf(two)].sort(), ['second_client_key', 'second_client_user']);
});

let stack: Stack;
let dir: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-preflight-'));
  stack = await startStack({ workDir: dir });
});
after(async () => { await stack.close(); fs.rmSync(dir, { recursive: true, force: true }); });

test('pre-flight: the embedded stack passes and gives one token per user', async () => {
  const r = await preflight(validateTarget(JSON.parse(JSON.stringify(stack.ready))));
  assert.deepEqual(r.problems, []);
  assert.equal(r.tokens.length, stack.ready.users!.length);
  assert.ok(r.ms < 10_000);
});

test('pre-flight: a wrong key, a wrong password, an untrusted certificate, an unreachable URL: one message each, under 10 s', async () => {
  const t = (): Target => validateTarget(JSON.parse(JSON.stringify(stack.ready)));
  const cases: Array<[string, Target, RegExp]> = [
    ['wrong key', { ...t(), api_key: 'wrong-key-1', api_keys: [{ client_id: 1, key: 'wrong-key-1' }] }, /^the key of "api_key" is refused with 403 Forbidden .*check the key; `--no-preflight` judges REST-AUTH anyway$/],
    ['wrong password', { ...t(), user: { username: stack.ready.user.username, password: 'nope' }, users: [] }, /^the login of "user" admin@client1\.example is refused with 400/],
    ['untrusted certificate', { ...t(), ca_file: undefined }, /"connector_url", "connector_control_url" https:\/\/127\.0\.0\.1:\d+; "sink_url" .*: the certificate is not trusted \(SELF_SIGNED_CERT_IN_CHAIN.*"ca_file".*NODE_EXTRA_CA_CERTS/],
    ['unreachable', { ...t(), base_url: 'https://127.0.0.1:9', rest_base_url: 'https://127.0.0.1:9/api/2', rest_ha_base_url: undefined, graphql_url: 'https://127.0.0.1:9/graphql' }, /"base_url", "rest_base_url", "graphql_url" https:\/\/127\.0\.0\.1:9: connection refused/],
    ['sim without its token', { ...t(), sim_token: undefined, connector_url: undefined, connector_control_url: undefined, sink_url: undefined } as Target, /^the simulation API \(capability sim\) refused a call without "sim_token" with 401 Unauthorized: give the token of the simulation API as "sim_token"$/],
    ['sim with a wrong token', { ...t(), sim_token: 'not-the-sim-token', connector_url: undefined, connector_control_url: undefined, sink_url: undefined } as Target, /^the simulation API \(capability sim\) refused "sim_token" with 401 Unauthorized: check the token$/],
  ];
  for (const [what, target, re] of cases) {
    const r = await preflight(target);
    assert.equal(r.problems.length, 1, `${what}: ${r.problems.join(' | ')}`);
    assert.match(r.problems[0]!, re, what);
    assert.ok(r.ms < 10_000, `${what} took ${r.ms} ms`);
  }
});

test('ces test --target and ces load --target with a refused key: exit 2 with the pre-flight message, nothing judged', async () => {
  const { execFile } = await import('node:child_process');
  const file = path.join(dir, 'wrong-key.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(JSON.stringify(stack.ready)), api_key: 'wrong-key-1', api_keys: [{ client_id: 1, key: 'wrong-key-1' }] }));
  const reports = path.join(dir, 'reports');
  // Asynchronous child: the stack answering the pre-flight lives in this process.
  const ces = (args: string[]) => new Promise<{ code: number | null; out: string; ms: number }>((resolve) => {
    const t0 = Date.now();
    execFile(process.execPath, [path.join(ROOT, 'bin', 'ces.js'), ...args], { env: { ...process.env, CES_REPORTS_DIR: reports } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, out: stdout + stderr, ms: Date.now() - t0 }));
  });
  for (const args of [['test', '--target', file, '--suite', 'rest'], ['load', 'rest-read', '--target', file, '--duration', '2s']]) {
    const r = await ces(args);
    assert.equal(r.code, 2, `ces ${args.join(' ')}: ${r.out}`);
    assert.match(r.out, /pre-flight of target .*wrong-key\.json failed, nothing was judged: the key of "api_key" is refused with 403 Forbidden/, args[0]);
    assert.doesNotMatch(r.out, /FAIL \[|threshold\(s\) crossed|failed clause/i, args[0]);
    assert.ok(r.ms < 20_000, `ces ${args[0]} took ${r.ms} ms`);
  }
});
