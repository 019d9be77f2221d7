// Network errors read by their codes (lib/net-errors.ts), as both pre-flights say them: an https:// URL of a plain-http server,
// and a certificate the CA given did not sign.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTls } from '../lib/tls.js';
import { errorCode, isCertError, isNotTls } from '../lib/net-errors.js';
import { stillAnswers } from '../lib/preflight.js';
import { preflight } from '../check/preflight.js';
import { outboundSecureContext } from '../lib/outbound.js';

let plain: http.Server;
let secure: https.Server;
let work: string;
let otherCa: string;
let ownCa: string;
const url = (s: http.Server | https.Server, scheme: string) => `${scheme}://127.0.0.1:${(s.address() as AddressInfo).port}/`;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-net-errors-'));
  plain = http.createServer((_q, r) => r.end('plain')).listen(0, '127.0.0.1');
  const tls = generateTls();
  ownCa = tls.ca.cert;
  secure = https.createServer({ cert: tls.server.cert, key: tls.server.key }, (_q, r) => r.end('secure')).listen(0, '127.0.0.1');
  // A CA that did not sign the server's certificate.
  otherCa = path.join(work, 'other-ca.pem');
  fs.writeFileSync(otherCa, generateTls().ca.cert);
  await Promise.all([plain, secure].map((s) => new Promise((r) => (s.listening ? r(undefined) : s.once('listening', r)))));
});
after(() => { plain.close(); secure.close(); fs.rmSync(work, { recursive: true, force: true }); });

test('codes, not texts: a plain-http server over TLS and an untrusted certificate, as undici reports them', async () => {
  const { fetch, Agent } = await import('undici');
  const viaUndici = async (u: string, ca?: string) => fetch(u, { dispatcher: new Agent({ connect: ca ? { ca: fs.readFileSync(ca, 'utf8') } : {} }) }).then(() => undefined, (e: unknown) => e);
  const notTls = await viaUndici(url(plain, 'https'));
  assert.ok(isNotTls(notTls) && !isCertError(notTls), `code ${errorCode(notTls)}`);
  const untrusted = await viaUndici(url(secure, 'https'), otherCa);
  assert.ok(isCertError(untrusted) && !isNotTls(untrusted), `code ${errorCode(untrusted)}`);
  // An error whose text merely mentions a certificate is not one.
  assert.equal(isCertError(new Error('the certificate of the bot is shown in the console')), false);
});

test('target probe (lib/preflight.ts) and `ces check` pre-flight (check/preflight.ts) say the same two causes', async () => {
  assert.match(await stillAnswers({ base_url: url(plain, 'https') }) ?? '', /does not speak TLS \(is it an http:\/\/ URL\?\)/);
  assert.match(await stillAnswers({ base_url: url(secure, 'https'), ca_file: otherCa }) ?? '', /the certificate is not trusted/);
  const p1 = await preflight(url(plain, 'https'));
  assert.equal(p1.ok, false);
  assert.match(p1.message ?? '', /does not speak TLS/);
  const p2 = await preflight(url(secure, 'https'), otherCa);
  assert.equal(p2.kind, 'untrusted');
  assert.match(p2.message ?? '', /give its CA with --ca-file/);
});

test("the service's outbound trust (lib/outbound.ts): the extra CA given, not another; one context per set of CAs", async () => {
  const { request, Agent } = await import('undici');
  const via = async (ca: string[]) => request(url(secure, 'https'), { dispatcher: new Agent({ connect: { secureContext: outboundSecureContext(ca) } }) })
    .then(async (r) => (await r.body.text()), (e: unknown) => e);
  assert.equal(await via([ownCa]), 'secure');
  const other = await via([fs.readFileSync(otherCa, 'utf8')]);
  assert.ok(isCertError(other), `another CA: code ${errorCode(other)}`);
  const none = await via([]);
  assert.ok(isCertError(none), `no extra CA: code ${errorCode(none)}`);
  assert.equal(outboundSecureContext([ownCa]), outboundSecureContext([ownCa]));
});
