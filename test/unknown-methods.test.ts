// Methods a path lacks, as the wire carries them (issue 28 item 3): tokens Node's parser refuses (`FOO`), methods it knows that Fastify
// routes nowhere (PROPFIND) and QUERY get the path surface's authentication first, then 405 with the path's Allow (or 404), in its shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../reference-impl/app.js';
import { generateTls } from '../lib/tls.js';
import { clientErrorHandler, parseRequestHead } from '../lib/http-errors.js';
import type { Duplex } from 'node:stream';

let app: FastifyInstance;
let port: number;
let ca: string;
let key: string;

before(async () => {
  const material = generateTls();
  ca = material.ca.cert;
  app = await buildApp({ https: { cert: material.server.cert, key: material.server.key } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
  key = (app.ces.db.prepare('SELECT api_key FROM clients ORDER BY id LIMIT 1').get() as { api_key: string }).api_key;
});
after(async () => { await app?.close(); });

interface Answer { status: number; headers: Record<string, string>; body: string; json: any; raw: string }

/** Writes `chunks` as they are (each its own TLS write, `gapMs` apart) and reads until the server closes the connection. */
function wire(chunks: string[], gapMs = 0): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, async () => {
      for (const [i, c] of chunks.entries()) {
        if (i && gapMs) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(c);
      }
    });
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => { raw += d; });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = raw.split('\r\n\r\n', 2) as [string?, string?];
      const [status, ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      let json: any;
      try { json = JSON.parse(body); } catch { json = undefined; }
      resolve({ status: Number(status?.split(' ')[1]), headers, body, json, raw });
    });
    socket.setTimeout(20_000, () => socket.destroy(new Error(`no answer within 20 s; received: ${raw.slice(0, 200)}`)));
  });
}
/** One request head (with `Connection: close`, so every answer ends the connection). */
const request = (method: string, path: string, headers: Record<string, string> = {}) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
const withKey = () => ({ 'X-API-Key': key });
/** No internals in an answer: Fastify codes, stack frames, source paths. */
const noInternals = (a: Answer) => assert.doesNotMatch(a.raw, /FST_|HPE_|\bat .+:\d+:\d+|node_modules|\/work\/|\.ts\b/, a.raw.slice(0, 300));

test('an unknown method token on a REST path is 405 with the path\'s Allow, in the REST envelope, naming the token', async () => {
  for (const [path, allow] of [['/api/2/operator', 'GET, HEAD, POST'], ['/ha/api/2/operator/7', 'DELETE, GET, HEAD, PUT'], ['/api/2/operator?limit=1', 'GET, HEAD, POST']] as const) {
    const a = await wire([request('FOO', path, withKey())]);
    assert.equal(a.status, 405, `FOO ${path}: ${a.raw.slice(0, 300)}`);
    assert.equal(a.headers.allow, allow, `FOO ${path}`);
    assert.equal(a.json?.meta?.status, 'fail', a.body);
    assert.match(a.json.meta.message, /Method FOO is not allowed on \/(ha\/)?api\/2\/operator/);
    assert.equal(a.headers.connection, 'close');
    assert.equal(Number(a.headers['content-length']), Buffer.byteLength(a.body, 'latin1'));
    noInternals(a);
  }
});

test('a path served as written keeps its own methods: FOO /operator/live is 405 with GET and HEAD, not /operator/{id}\'s', async () => {
  const a = await wire([request('FOO', '/api/2/operator/live', withKey())]);
  assert.equal(a.status, 405, a.raw.slice(0, 300));
  assert.equal(a.headers.allow, 'GET, HEAD');
  assert.match(a.json.meta.message, /Method FOO is not allowed on \/api\/2\/operator\/live; allowed: GET, HEAD\./);
});

test('an unknown method is authenticated as every request of the surface is: without a key the REST and platform refusal, no Allow', async () => {
  for (const path of ['/api/2/operator', '/api/2/no-such-route', '/platform/bots']) {
    const a = await wire([request('FOO', path)]);
    assert.equal(a.status, 403, `FOO ${path}: ${a.raw.slice(0, 300)}`);
    assert.deepEqual(a.json, { meta: { status: 'error', message: 'Forbidden' } });
    assert.equal(a.headers.allow, undefined, `FOO ${path} reveals the methods without a key`);
  }
  // A wrong key is refused the same way.
  const wrong = await wire([request('FOO', '/api/2/operator', { 'X-API-Key': 'not-a-key' })]);
  assert.equal(wrong.status, 403);
  // The simulation API wants its bearer token.
  const sim = await wire([request('FOO', '/sim/clock/advance')]);
  assert.equal(sim.status, 401, sim.raw.slice(0, 300));
});

test('each surface answers an unknown method in its own shape; a path nobody serves is 404', async () => {
  const platform = await wire([request('FOO', '/platform/bots', withKey())]);
  assert.equal(platform.status, 405, platform.raw.slice(0, 300));
  assert.equal(platform.json.error, 'method_not_allowed');
  assert.ok(platform.headers.allow?.includes('GET'));
  const graphql = await wire([request('FOO', '/graphql')]);
  assert.equal(graphql.status, 405, graphql.raw.slice(0, 300));
  assert.ok(Array.isArray(graphql.json.errors));
  assert.ok(graphql.headers.allow?.includes('POST'));
  const unknownRest = await wire([request('FOO', '/api/2/no-such-route', withKey())]);
  assert.equal(unknownRest.status, 404);
  assert.equal(unknownRest.json.meta.status, 'fail');
  assert.match(unknownRest.json.meta.message, /Unknown route FOO \/api\/2\/no-such-route/);
  const nowhere = await wire([request('FOO', '/no-such-surface')]);
  assert.equal(nowhere.status, 404);
  assert.equal(nowhere.json.error, 'not_found');
  for (const a of [platform, graphql, unknownRest, nowhere]) noInternals(a);
});

test('methods Node knows that no route serves (PROPFIND, PURGE, MKCOL) and QUERY get the same answers', async () => {
  for (const method of ['PROPFIND', 'PURGE', 'MKCOL', 'QUERY']) {
    const a = await wire([request(method, '/api/2/operator', withKey())]);
    assert.equal(a.status, 405, `${method}: ${a.raw.slice(0, 300)}`);
    assert.equal(a.headers.allow, 'GET, HEAD, POST', method);
    assert.match(a.json.meta.message, new RegExp(`Method ${method} is not allowed`));
    const anonymous = await wire([request(method, '/api/2/operator')]);
    assert.equal(anonymous.status, 403, `${method} without a key: ${anonymous.raw.slice(0, 300)}`);
  }
  // QUERY with a JSON body and its content type (as RFC 10008 sends it) is no different.
  const body = '{"limit":1}';
  const q = await wire([request('QUERY', '/api/2/operator', { ...withKey(), 'Content-Type': 'application/json', 'Content-Length': String(body.length) }) + body]);
  assert.equal(q.status, 405, q.raw.slice(0, 300));
  assert.equal(q.headers.allow, 'GET, HEAD, POST');
});

test('an unknown method with a body, or a body written after the head, gets one answer, and the server goes on serving', async () => {
  const body = 'x'.repeat(3000);
  const head = request('FOO', '/api/2/operator', { ...withKey(), 'Content-Type': 'text/plain', 'Content-Length': String(body.length) });
  const together = await wire([head + body]);
  assert.equal(together.status, 405);
  const apart = await wire([head, body.slice(0, 1000), body.slice(1000)], 30);
  assert.equal(apart.status, 405, apart.raw.slice(0, 300));
  assert.equal(apart.raw.split('HTTP/1.1 ').length - 1, 1, `one answer only: ${apart.raw.slice(0, 500)}`);
  const next = await wire([request('GET', '/api/2/operator?limit=1', withKey())]);
  assert.equal(next.status, 200, next.raw.slice(0, 300));
});

test('a head that cannot be read is 400 (or 431 over 16 KiB), in a plain body, never a crash', async () => {
  const bad = await wire([`FOO /api/2/operator HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nX-API-Key: ${key}\r\n\r\n`]);
  assert.equal(bad.status, 400, bad.raw.slice(0, 300));
  assert.equal(bad.json.error, 'invalid_request');
  const absolute = await wire([`FOO https://127.0.0.1/api/2/operator HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`]);
  assert.equal(absolute.status, 400);
  const big = await wire([request('FOO', '/api/2/operator', { ...withKey(), 'X-Filler': 'a'.repeat(17 * 1024) })]);
  assert.equal(big.status, 431, big.raw.slice(0, 300));
  for (const a of [bad, absolute, big]) noInternals(a);
  const next = await wire([request('GET', '/api/2/operator?limit=1', withKey())]);
  assert.equal(next.status, 200);
});

test('the header that carries an unknown token inside the process changes nothing when a client sends it', async () => {
  const get = await wire([request('GET', '/api/2/operator?limit=1', { ...withKey(), 'X-Ces-Unparsed-Method': 'FOO' })]);
  assert.equal(get.status, 200, get.raw.slice(0, 300));
  const trace = await wire([request('TRACE', '/api/2/operator', { ...withKey(), 'X-Ces-Unparsed-Method': 'FOO' })]);
  assert.equal(trace.status, 405);
  assert.match(trace.json.meta.message, /Method TRACE is not allowed/);
});

test('parseRequestHead reads a head as received and refuses what is not HTTP/1.1', () => {
  const head = parseRequestHead(Buffer.from('FOO /api/2/operator?key=k HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc'));
  assert.deepEqual(head, { method: 'FOO', url: '/api/2/operator?key=k', headers: { host: 'h', 'x-a': ['1', '2'] } });
  const refused: Array<[string, number]> = [
    ['FOO /x HTTP/1.1\r\nHost: h\r\n', 400], // the head has not arrived whole
    ['FOO /x HTTP/2\r\n\r\n', 400],
    ['FOO  /x HTTP/1.1\r\n\r\n', 400],
    ['F(O /x HTTP/1.1\r\n\r\n', 400],
    ['FOO x HTTP/1.1\r\n\r\n', 400],
    ['FOO /a\x00b HTTP/1.1\r\n\r\n', 400],
    ['FOO /\xe9 HTTP/1.1\r\n\r\n', 400],
    ['FOO /x HTTP/1.1\r\n folded\r\n\r\n', 400],
    ['FOO /x HTTP/1.1\r\nA: \x01\r\n\r\n', 400],
    [`FOO /x HTTP/1.1\r\nA: ${'b'.repeat(16 * 1024)}\r\n\r\n`, 431],
    [`FOO /x HTTP/1.1\r\nA: ${'b'.repeat(16 * 1024)}`, 431],
  ];
  for (const [text, status] of refused) assert.equal((parseRequestHead(Buffer.from(text, 'latin1')) as { status?: number }).status, status, JSON.stringify(text.slice(0, 40)));
});

test('the parser raises its error again for every later chunk (a body written apart): the first answer is the only one', async () => {
  // Node's parser stays in error and emits clientError for each chunk that follows the head; the surface's answer comes later.
  const written: string[] = [];
  const socket = { destroyed: false, writable: true, remoteAddress: '127.0.0.1', end(b: Buffer) { written.push(b.toString('latin1')); this.writable = false; }, destroy() { this.destroyed = true; } };
  let answer!: (r: unknown) => void;
  const fakeApp = { inject: () => new Promise((r) => { answer = r; }) } as unknown as FastifyInstance;
  const error = (packet: string) => Object.assign(new Error('Invalid method encountered'), { code: 'HPE_INVALID_METHOD', rawPacket: Buffer.from(packet) });
  clientErrorHandler.call(fakeApp, error(`FOO /api/2/operator HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\n`), socket as unknown as Duplex);
  clientErrorHandler.call(fakeApp, error('abc'), socket as unknown as Duplex);
  clientErrorHandler.call(fakeApp, error('def'), socket as unknown as Duplex);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(written, [], 'nothing written before the surface answers');
  answer({ statusCode: 405, headers: { allow: 'GET', 'content-type': 'application/json' }, rawPayload: Buffer.from('{}') });
  await new Promise((r) => setImmediate(r));
  assert.equal(written.length, 1, written.join('\n---\n'));
  assert.match(written[0]!, /^HTTP\/1\.1 405 Method Not Allowed\r\nallow: GET\r\ncontent-type: application\/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n\{\}$/);
});
