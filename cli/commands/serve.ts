// `ces serve`: the reference implementation, fake connector and webhook sink on loopback HTTPS, with a ready file.
import fs from 'node:fs';
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';
import { requireSqlite } from '../../lib/optional-parts.js';
import { writeFileAtomic } from '../../lib/write-atomic.js';

interface Args { port: number; host: string; 'ready-file'?: string; seed: number; db: string; deviate: string[]; 'connector-url'?: string; 'webhook-url'?: string; 'webhook-secret'?: string; insecure: boolean; wire: boolean }

export const serveCommand: CommandModule<{}, Args> = {
  command: 'serve',
  describe: 'Start the reference service, fake connector and webhook sink (HTTPS, generated CA) and print `ready <json>`',
  builder: (y) => y
    .option('port', { type: 'number', default: 0, describe: 'Port of the reference service (0: a free port)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('ready-file', { type: 'string', describe: 'Write the ready JSON (a valid target file) here' })
    .option('seed', { type: 'number', default: 42, describe: 'Seed of the deterministic data set' })
    .option('db', { type: 'string', default: ':memory:', describe: 'SQLite database: :memory: or a file path (kept across restarts)' })
    .option('deviate', { type: 'string', array: true, default: [] as string[], describe: 'Switch on a deliberate deviation (repeatable; `ces selftest --list`)' })
    .option('connector-url', { type: 'string', describe: 'Make the seeded bot use this connector instead of the fake one (HTTPS)' })
    .option('webhook-url', { type: 'string', describe: 'Subscribe this callback URL to every event kind' })
    .option('webhook-secret', { type: 'string', describe: 'Secret of that subscription (signs deliveries)' })
    .option('wire', { type: 'boolean', default: false, describe: 'Put the wire proxy between the service and its fake connector and sink (`ces selftest --wire --target` the ready file switches its faults; wire_url in the ready info)' })
    .option('insecure', { type: 'boolean', default: false, describe: 'Allow plain-HTTP connector and callback URLs (local development only)' })
    .check((a) => {
      if (a['webhook-url'] && !a['webhook-secret']) throw new UsageError('--webhook-url needs --webhook-secret');
      for (const k of ['connector-url', 'webhook-url'] as const) {
        const v = a[k];
        if (v && !/^https:\/\//.test(v) && !(a.insecure && /^http:\/\//.test(v))) throw new UsageError(`--${k} must be an https:// URL (got ${v}); add --insecure for plain http during local development`);
      }
      if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535) throw new UsageError(`--port must be 0..65535 (got ${a.port})`);
      return true;
    }),
  handler: async (a) => {
    // Loaded here: the reference implementation's modules cost every other command (and `ces --help`) half a second of start-up.
    const { startStack } = await import('../../reference-impl/stack.js');
    const { UnknownDeviationError } = await import('../../reference-impl/deviations.js');
    requireSqlite();
    let stack;
    try {
      stack = await startStack({
        port: a.port, host: a.host, seed: a.seed, db: a.db, deviate: a.deviate, connectorUrl: a['connector-url'],
        webhookUrl: a['webhook-url'], webhookSecret: a['webhook-secret'], insecure: a.insecure, wire: a.wire,
        outboundCa: process.env.NODE_EXTRA_CA_CERTS && fs.existsSync(process.env.NODE_EXTRA_CA_CERTS) ? [fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8')] : undefined,
      });
    } catch (e) {
      if (e instanceof UnknownDeviationError) throw new UsageError(e.message);
      throw e;
    }
    const json = JSON.stringify(stack.ready);
    // The ready file holds every credential: readable by its owner only. Whole or absent: a script waiting for it to appear
    // reads it as soon as it exists (a plain write let a waiting test read it empty).
    if (a['ready-file']) writeFileAtomic(a['ready-file'], JSON.stringify(stack.ready, null, 2), 0o600);
    console.log(`ready ${json}`);
    if (stack.ready.chat_url) console.error(`chat window: ${stack.ready.chat_url}\ninspector:   ${stack.ready.inspector_url}`);
    const stop = async () => { await stack.close(); process.exit(0); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
};
