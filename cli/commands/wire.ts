// `ces wire`: the mutating wire proxy alone, between a service team's own service and its fake connector and webhook sink, so `ces selftest --wire --target F` proves the suites in that set-up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { CommandModule } from 'yargs';
import { generateTls } from '../../lib/tls.js';
import { newControlToken } from '../../lib/control-auth.js';
import { loadClauses } from '../../lib/catalogue.js';
import { startWireProxy } from '../../wire/proxy.js';
import { loadWireFaults } from '../../wire/faults.js';
import { UsageError } from '../usage.js';
import { writeFileAtomic } from '../../lib/write-atomic.js';

interface Args { 'connector-upstream': string; 'sink-upstream': string; 'connector-secret': string; 'control-token'?: string; 'ca-file': string[]; host: string; 'ready-file'?: string; 'work-dir'?: string; fault?: string }

const https = (v: string, name: string) => {
  let u: URL;
  try { u = new URL(v); } catch { throw new UsageError(`--${name} must be an absolute https:// URL (got ${v})`); }
  if (u.protocol !== 'https:') throw new UsageError(`--${name} must be an https:// URL (got ${v})`);
  return v.replace(/\/+$/, '');
};

export const wireCommand: CommandModule<{}, Args> = {
  command: 'wire',
  describe: 'Run the wire proxy alone (HTTPS) in front of a fake connector and a webhook sink: `ces selftest --wire --target F` switches its faults',
  builder: (y) => y
    .option('connector-upstream', { type: 'string', demandOption: true, describe: 'The fake connector the proxy forwards to (`ces serve` prints its connector_url)' })
    .option('sink-upstream', { type: 'string', demandOption: true, describe: 'The webhook sink the proxy forwards to (`ces sink` or `ces serve` print its sink_url)' })
    .option('connector-secret', { type: 'string', demandOption: true, describe: 'The connector secret your service signs connector calls with (G2): the proxy signs what it changes with it' })
    .option('control-token', { type: 'string', describe: 'Bearer token of the proxy\'s control API: give your target file\'s sim_token (the harness sends it); random when absent' })
    .option('ca-file', { type: 'string', array: true, default: [] as string[], describe: 'CA certificate(s) the upstreams chain to (repeatable), besides Node\'s roots' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on (your service must reach it)' })
    .option('fault', { type: 'string', describe: 'A wire fault on from the start (`ces selftest --list`)' })
    .option('ready-file', { type: 'string', describe: 'Write {connector_url, sink_url, wire_url, control_token, ca_file} here when ready (mode 0600)' })
    .option('work-dir', { type: 'string', describe: 'Folder for the proxy\'s generated CA certificate (a temporary folder by default)' })
    .epilogue([
      'Point your service at the proxy: its bots\' connector base URL is connector_url, webhook subscriptions go to sink_url',
      '(the harness subscribes {sink_url}/hooks/<id>). In the target file put connector_url, sink_url and wire_url of the ready line,',
      'connector_control_url = {your fake connector}/_control, and make the service trust ca_file (NODE_EXTRA_CA_CERTS).',
      'Control API (Authorization: Bearer <control_token>): POST {wire_url}/fault {"id": "<wire fault>"|null}; GET {wire_url}/fault;',
      'POST {wire_url}/secrets {"path", "secret"} (the harness gives each subscription\'s secret, to re-sign what it changes).',
    ].join('\n')),
  handler: async (a) => {
    const connectorUpstream = https(a['connector-upstream'], 'connector-upstream');
    const sinkUpstream = https(a['sink-upstream'], 'sink-upstream');
    const faults = loadWireFaults(new Set(loadClauses().map((c) => c.id)));
    if (a.fault && !faults.some((f) => f.id === a.fault)) throw new UsageError(`unknown wire fault "${a.fault}"; see \`ces selftest --list\``);
    const ca = a['ca-file'].map((f) => { try { return fs.readFileSync(f, 'utf8'); } catch (e) { throw new UsageError(`--ca-file ${f}: ${(e as Error).message}`); } });
    const material = generateTls(a.host === '127.0.0.1' || a.host === '0.0.0.0' ? [] : [a.host]);
    const workDir = a['work-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ces-wire-'));
    fs.mkdirSync(workDir, { recursive: true });
    const caFile = path.join(workDir, 'ca.pem');
    fs.writeFileSync(caFile, material.ca.cert);
    const controlToken = a['control-token'] ?? newControlToken();
    let proxy;
    try {
      proxy = await startWireProxy({ tls: material.server, ca: [...tls.rootCertificates, ...ca], host: a.host, connectorUpstream, sinkUpstream, connectorSecret: a['connector-secret'], controlToken, faults, initial: a.fault });
    } catch (e) {
      throw new UsageError(`cannot start the wire proxy on ${a.host}: ${(e as Error).message}`);
    }
    const ready = { connector_url: proxy.connectorUrl, sink_url: proxy.sinkUrl, wire_url: proxy.controlUrl, control_token: controlToken, ca_file: caFile };
    // Whole or absent (a script waiting for the file reads it as soon as it exists), the owner's only from its creation.
    if (a['ready-file']) writeFileAtomic(a['ready-file'], JSON.stringify(ready, null, 2), 0o600);
    console.log(`ready ${JSON.stringify(ready)}`);
    const stop = async () => { await proxy.close(); process.exit(0); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
};
