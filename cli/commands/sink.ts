// `ces sink`: the webhook sink on its own, for a vendor testing its sender: HTTPS receiver, signature and schema verdicts, plans, control API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { generateTls } from '../../lib/tls.js';
import { startWebhookSink } from '../../webhook-sink/server.js';
import { UsageError } from '../usage.js';
import { writeFileAtomic } from '../../lib/write-atomic.js';

interface Args { port: number; host: string; secret?: string; 'ready-file'?: string; 'work-dir'?: string }

export const sinkCommand: CommandModule<{}, Args> = {
  command: 'sink',
  describe: 'Run the webhook sink alone (HTTPS): verifies X-Service-Signature, validates payloads, records deliveries, answers per plan; control API under /_control',
  builder: (y) => y
    .option('port', { type: 'number', default: 0, describe: 'Port to listen on (0: a free port)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('secret', { type: 'string', describe: 'Secret the sender signs deliveries with (HMAC-SHA256, G1); required' })
    .option('ready-file', { type: 'string', describe: 'Write {sink_url, control_url, control_token, ca_file} here when ready (mode 0600)' })
    .option('work-dir', { type: 'string', describe: 'Folder for the generated CA certificate (a temporary folder by default)' })
    .epilogue([
      'Control API (JSON; every call needs Authorization: Bearer <control_token> from the ready line):',
      '  GET  /_control/deliveries?path=&correlationId=&eventType=&eventId=&body.<field>=',
      '  GET  /_control/wait?<same filters>&count=1&timeoutMs=10000',
      '  POST /_control/plan {"match": {"path"?, "eventType"?, "correlationId"?, "body"?}, "answers": [503, 503, 200], "then"?: 200}',
      '       an answer may be {"status": 200, "delayMs": 35000} (a slow subscriber)',
      '  POST /_control/reset {"path"?}',
      'The sender must trust the CA written to ca_file (e.g. NODE_EXTRA_CA_CERTS).',
    ].join('\n'))
    .check((a) => {
      if (!a.secret) throw new UsageError('--secret is required: the secret the sender signs deliveries with');
      if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new UsageError(`--port must be 0..65535 (got ${a.port})`);
      return true;
    }),
  handler: async (a) => {
    const tls = generateTls(a.host === '127.0.0.1' || a.host === '0.0.0.0' ? [] : [a.host]);
    const workDir = a['work-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ces-sink-'));
    fs.mkdirSync(workDir, { recursive: true });
    const caFile = path.join(workDir, 'ca.pem');
    fs.writeFileSync(caFile, tls.ca.cert);
    let sink;
    try {
      sink = await startWebhookSink({ tls: tls.server, secret: a.secret!, port: a.port, host: a.host });
    } catch (e) {
      throw new UsageError(`cannot start the sink on ${a.host}:${a.port}: ${(e as Error).message}`);
    }
    // The control API answers only with this token (Authorization: Bearer <control_token>); the ready file is the owner's only.
    const ready = { sink_url: sink.url, control_url: sink.controlUrl, control_token: sink.controlToken, ca_file: caFile };
    // Whole or absent (a script waiting for the file reads it as soon as it exists), the owner's only from its creation.
    if (a['ready-file']) writeFileAtomic(a['ready-file'], JSON.stringify(ready, null, 2), 0o600);
    console.log(`ready ${JSON.stringify(ready)}`);
    const stop = async () => { await sink.close(); process.exit(0); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
};
