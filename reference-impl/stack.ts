// Starts the whole embedded stack (reference impl, fake connector, webhook sink) on loopback HTTPS and describes it as a ready file / target.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { generateTls, type TlsMaterial } from '../lib/tls.js';
import type { Target } from '../lib/target.js';
import { buildApp, type BuildOptions } from './app.js';
import { routePlainHttp } from './plain-http.js';
import { randomizeCredentials, seededPassword } from './store/credentials.js';
import { newControlToken } from '../lib/control-auth.js';
import { startInThread } from '../lib/thread-server.js';
import type { PartnersOptions, PartnersReady } from './partners.js';

export interface StackOptions extends BuildOptions {
  /** CA and server certificate to use (the stacks of one run share one CA, so every worker trusts every stack); generated when absent. */
  tls?: TlsMaterial;
  port?: number;
  host?: string;
  /** Folder for the CA file (a temporary folder by default). */
  workDir?: string;
  sinkSecret?: string;
  /** `ces selftest --wire`: the service reaches its fake connector and sink through the mutating wire proxy (wire/proxy.ts). */
  wire?: boolean;
  /** With `wire`: a wire fault active from the start (`ces test --wire-fault`). */
  wireFault?: string;
}

export interface ReadyInfo extends Target {
  connector_url: string;
  /** Bearer token of the simulation API and of the fakes' control APIs. */
  sim_token: string;
  /** Control API of the embedded fake connector (scenarios, faults, request log); absent when --connector-url points elsewhere. */
  connector_control_url?: string;
  sink_url: string;
  sim_url: string;
  platform_url: string;
  ca_file: string;
  /** Control API of the wire proxy between the service and its partners (`ces selftest --wire`). */
  wire_url?: string;
  /** JSON file {connector_secret, sink_secret} in a private temp folder (never in the ready info, output or reports), for the connector-check and receiver-check suites. */
  secrets_file?: string;
}

/** Loopback addresses, where seeded credentials are allowed. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || /^::ffff:127\./.test(host);
}

export interface Stack { ready: ReadyInfo; app: FastifyInstance; close(): Promise<void> }

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const host = opts.host ?? '127.0.0.1';
  const tls = opts.tls ?? generateTls(host === '127.0.0.1' ? [] : [host]);
  const workDir = opts.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ces-'));
  fs.mkdirSync(workDir, { recursive: true });
  const caFile = path.join(workDir, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca.cert);

  const seed = opts.seed ?? 42;
  // Seeded, deterministic credentials are for loopback only: anywhere else every key, password, secret and token is random for this start.
  const loopback = isLoopback(host);
  const secret = (seeded: string) => (loopback ? seeded : newControlToken());
  const connectorSecret = opts.connectorSecret ?? secret('connector-secret-' + seed);
  const sinkSecret = opts.sinkSecret ?? secret('sink-secret-' + seed);
  const simToken = opts.simToken ?? newControlToken();
  // The fake connector and the sink run in a worker thread of their own, off the service's event loop (as real partners would be).
  const partners = await startInThread<PartnersReady>(new URL('./partners.js', import.meta.url), 'startPartners', { tls: tls.server, host, connectorSecret, sinkSecret, controlToken: simToken, ...(opts.wire || opts.wireFault ? { wire: { ca: tls.ca.cert, ...(opts.wireFault ? { fault: opts.wireFault } : {}) } } : {}) } satisfies PartnersOptions);
  const { connector, sink, wire } = partners.ready;
  // Through the wire proxy when there is one: the service and the checks reach the partners where the proxy can change the calls.
  const connectorUrl = opts.connectorUrl ?? wire?.connectorUrl ?? connector.url;
  const sinkUrl = wire?.sinkUrl ?? sink.url;
  const app = await buildApp({
    ...opts,
    seed,
    simToken,
    connectorSecret,
    connectorUrl,
    outboundCa: [tls.ca.cert, ...(opts.outboundCa ?? [])],
    https: { cert: tls.server.cert, key: tls.server.key },
  });
  routePlainHttp(app);
  await app.listen({ host, port: opts.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  const base = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;

  // The check suites sign like the service and verify like the sink: they read the secrets from a private file, so they never appear in the ready line or in reports/.
  const secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-secrets-'));
  const secretsFile = path.join(secretsDir, 'secrets.json');
  fs.writeFileSync(secretsFile, JSON.stringify({ connector_secret: connectorSecret, sink_secret: sinkSecret }), { mode: 0o600 });
  const randomized = loopback ? null : randomizeCredentials(app.ces.db);
  if (randomized) app.ces.apiKeys.forget();
  const clients = app.ces.db.prepare('SELECT id, api_key FROM clients ORDER BY id').all() as Array<{ id: number; api_key: string }>;
  const users = clients.map((c, i) => ({ client_id: c.id, username: `admin@client${i + 1}.example`, password: randomized?.get(c.id)?.adminPassword ?? seededPassword(seed, c.id) }));
  const ready: ReadyInfo = {
    base_url: base,
    graphql_url: `${base}/graphql`,
    rest_base_url: `${base}/api/2`,
    rest_ha_base_url: `${base}/ha/api/2`,
    connector_url: connectorUrl,
    ...(opts.connectorUrl ? {} : { connector_control_url: connector.controlUrl }),
    sink_url: sinkUrl,
    ...(wire ? { wire_url: wire.controlUrl } : {}),
    sim_url: `${base}/sim`,
    sim_token: simToken,
    platform_url: `${base}/platform`,
    chat_url: `${base}/console/chat`,
    inspector_url: `${base}/console/inspector`,
    api_key: clients[0]!.api_key,
    api_keys: clients.map((c) => ({ client_id: c.id, key: c.api_key })),
    user: { username: users[0]!.username, password: users[0]!.password },
    users,
    ca_file: caFile,
    capabilities: ['sim', 'platform', 'clock'],
    reference: true,
    // The deviations the stack started with (the simulation API may switch others on later).
    deviations: [...new Set(opts.deviate ?? [])],
    secrets_file: secretsFile,
  };
  return {
    ready,
    app,
    async close() {
      await app.close();
      await partners.close();
      fs.rmSync(secretsDir, { recursive: true, force: true });
    },
  };
}
