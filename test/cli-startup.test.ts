// Start-up of `ces`: the command list of --help loads no command module and matches the modules; the version comes from package.json; `ces setup` installs k6 from a release it has checked, and refuses a tampered one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../lib/paths.js';
import { COMMANDS } from '../cli/command-list.js';
import { K6_VERSION } from '../lib/optional-parts.js';
import { downloadK6, k6Archive } from '../cli/commands/setup.js';

const CES = path.join(ROOT, 'bin', 'ces.js');

test('the command list of `ces --help` is each command module\'s own command and description', async () => {
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const mod = await entry.load();
    assert.equal(mod.command, entry.command, `${name}: command`);
    assert.equal(mod.describe, entry.describe, `${name}: description`);
  }
});

test('`ces --help` lists every command without loading any command module, the reference implementation or Playwright', () => {
  // A resolve hook records every module the process loads (the hooks run on their own thread and see every import).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-startup-'));
  try {
    const log = path.join(dir, 'loaded.txt');
    const hooks = path.join(dir, 'hooks.mjs');
    fs.writeFileSync(hooks, `import fs from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); fs.appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`);
    const register = path.join(dir, 'register.mjs');
    fs.writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    const r = spawnSync(process.execPath, ['--import', register, CES, '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    for (const c of Object.values(COMMANDS)) assert.ok(r.stdout.includes(`ces ${c.command}`), `--help lists ces ${c.command}`);
    const loaded = fs.readFileSync(log, 'utf8').split('\n');
    assert.ok(loaded.some((u) => u.endsWith('/dist/cli/ces.js')), 'the compiled CLI ran');
    const heavy = loaded.filter((u) => /\/cli\/commands\/|\/reference-impl\/|@playwright|playwright-core|\/fastify\/|\/graphql\//.test(u));
    assert.deepEqual(heavy, [], 'modules loaded by --help');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('`ces --version` is the version of package.json', () => {
  const r = spawnSync(process.execPath, [CES, '--version'], { encoding: 'utf8' });
  assert.equal(r.stdout.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
});

test('`ces setup --only` with an unknown part is a usage error naming the parts', () => {
  const r = spawnSync(process.execPath, [CES, 'setup', '--only', 'k6,java'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown part\(s\) java; accepted: sqlite, k6, chromium/);
});

/** A mirror of k6's releases on loopback, holding a fake k6 (a shell script) for this platform and the checksums file. */
async function mirror(tamper: boolean): Promise<{ url: string; close(): void; dir: string }> {
  const archive = k6Archive()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-k6-mirror-'));
  const inner = path.join(dir, archive.replace(/\.tar\.gz$/, ''));
  fs.mkdirSync(inner);
  fs.writeFileSync(path.join(inner, 'k6'), `#!/bin/sh\necho "k6 ${K6_VERSION} (fake, from the test mirror)"\n`, { mode: 0o755 });
  spawnSync('tar', ['-czf', path.join(dir, archive), '-C', dir, path.basename(inner)]);
  const data = fs.readFileSync(path.join(dir, archive));
  const sum = crypto.createHash('sha256').update(tamper ? Buffer.from('something else') : data).digest('hex');
  const files: Record<string, Buffer> = { [`/${K6_VERSION}/${archive}`]: data, [`/${K6_VERSION}/k6-${K6_VERSION}-checksums.txt`]: Buffer.from(`${'0'.repeat(64)}  k6-${K6_VERSION}-other.zip\n${sum}  ${archive}\n`) };
  const server = http.createServer((req, res) => { const body = files[req.url ?? '']; res.writeHead(body ? 200 : 404).end(body); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close(), dir };
}

test('k6 is installed from its release archive only when it matches the published SHA-256', { skip: process.platform !== 'linux' ? 'the fake archive is a Linux tar.gz' : false }, async () => {
  for (const tamper of [false, true]) {
    const m = await mirror(tamper);
    const dest = path.join(m.dir, 'installed');
    const saved = process.env.CES_K6_MIRROR;
    process.env.CES_K6_MIRROR = m.url;
    try {
      if (tamper) {
        await assert.rejects(downloadK6(dest), /does not match its published SHA-256/);
        assert.ok(!fs.existsSync(path.join(dest, 'k6')), 'nothing installed');
      } else {
        const k6 = await downloadK6(dest);
        assert.equal(k6, path.join(dest, 'k6'));
        assert.match(spawnSync(k6, ['version'], { encoding: 'utf8' }).stdout, new RegExp(`k6 ${K6_VERSION.replace(/\./g, '\\.')}`));
      }
    } finally {
      if (saved === undefined) delete process.env.CES_K6_MIRROR; else process.env.CES_K6_MIRROR = saved;
      m.close();
      fs.rmSync(m.dir, { recursive: true, force: true });
    }
  }
});
