// What `ces check` (or `ces test`) asks the connector-check and receiver-check suites to judge: URLs, ids and secrets from CES_CHECK_* variables, else the target's fake connector and sink.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Target } from '../lib/target.js';
import { addSecret } from '../lib/mask.js';

/** Environment variables `ces check` sets for the Playwright run (secrets travel here, never in files). */
export const CHECK_ENV = {
  connectorUrl: 'CES_CHECK_CONNECTOR_URL',
  connectorSecret: 'CES_CHECK_CONNECTOR_SECRET',
  connectorVersion: 'CES_CHECK_CONNECTOR_VERSION',
  website: 'CES_CHECK_WEBSITE',
  language: 'CES_CHECK_LANGUAGE',
  script: 'CES_CHECK_SCRIPT',
  receiverUrl: 'CES_CHECK_RECEIVER_URL',
  receiverSecret: 'CES_CHECK_RECEIVER_SECRET',
  allowHttp: 'CES_CHECK_ALLOW_HTTP',
  unsigned: 'CES_CHECK_UNSIGNED',
  caFile: 'CES_CHECK_CA_FILE',
  conversations: 'CES_CHECK_CONVERSATIONS',
  /** Options that only re-run commands carry: --strict, and the run's --report-dir (a re-run writes beside it). */
  strict: 'CES_CHECK_STRICT',
  reportDir: 'CES_CHECK_REPORT_DIR',
} as const;

/** Conversations held at once by the concurrency check (G28) unless `--conversations N` says otherwise. */
export const DEFAULT_CONVERSATIONS = 3;

/** A script step that clicks the first quick reply of the connector's last answer (skipped when none is offered). */
export const QUICK_REPLY_STEP = '@quick-reply';
/** Default visitor script: a greeting, a quick-reply click if offered, a free text. */
export const DEFAULT_SCRIPT: readonly string[] = ['Hello', QUICK_REPLY_STEP, 'I would like some information about my order, please.'];
/**
 * Script used against the embedded stack's fake connector (target `reference`): texts of its demo scenario
 * (fixtures/scenarios/demo.json), so quick replies, rich content, images and transfers are all judged there.
 */
export const REFERENCE_SCRIPT: readonly string[] = ['example quick replies', QUICK_REPLY_STEP, 'rich content', 'transfer support'];
/** Scripts the concurrency check (G28) holds alone, then at once: different visitors saying different things. */
export const CONCURRENT_SCRIPTS: readonly string[][] = [
  ['Hello', 'I would like some information about my order, please.'],
  ['Good morning', 'Can you help me with an invoice?'],
  ['Hi', 'I would like to talk to someone.'],
  ['Hey', 'What are your opening hours?'],
];
/** The same against the embedded stack's fake connector: texts of its demo scenario with different answers. */
export const REFERENCE_CONCURRENT_SCRIPTS: readonly string[][] = [['example quick replies', 'Yes please'], ['rich content', 'schedule'], ['remember me', 'No thanks']];

/**
 * N scripts for the concurrency check: the defaults in turn; with a user's script, that script rotated by one step per
 * conversation (so conversations held at once say different things at each step).
 */
export function concurrentScripts(s: ConnectorCheckSettings, reference: boolean): string[][] {
  if (env(CHECK_ENV.script)) return Array.from({ length: s.conversations }, (_, i) => [...s.script.slice(i % s.script.length), ...s.script.slice(0, i % s.script.length)]);
  const base = reference && s.origin !== 'ces check' ? REFERENCE_CONCURRENT_SCRIPTS : CONCURRENT_SCRIPTS;
  return Array.from({ length: s.conversations }, (_, i) => [...base[i % base.length]!]);
}

/** Default project id sent as idWebsite when the user gives none. */
export const DEFAULT_WEBSITE = '1';
/** Default bot language (two letters) of the bot write body. */
export const DEFAULT_LANGUAGE = 'en';
/**
 * Distribution rules the checker gives in the bot write body. The labels are the ones the project's scenarios use, so
 * a connector that maps rule labels to ids finds them; the ids are new each run.
 */
export const RULE_LABELS: readonly string[] = ['Support', 'Sales', 'Night shift'];

export interface ConnectorCheckSettings {
  url: string;
  secret: string;
  connectorVersion: string;
  website: string;
  language: string;
  allowHttp: boolean;
  /** `--unsigned`: calls carry no signature (a connector under development); the signature clauses are not judged. */
  unsigned: boolean;
  script: string[];
  /** Conversations held at once by the concurrency check (1: that clause is not judged). */
  conversations: number;
  /** Where the URL came from, for report texts. */
  origin: 'ces check' | 'target connector_url';
}

/**
 * One idConnectorVersion per run: `ces check` passes the one given or generated; inside `ces test` it is derived from the
 * run folder, so every worker of the run sends the same one.
 */
export function runConnectorVersion(seed = process.env.CES_RUN_DIR ?? String(process.ppid)): string {
  const h = createHash('sha256').update(`ces-connector-version:${seed}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Deliveries under this path of the webhook sink are refused with 401 when their signature does not verify. */
export const STRICT_SINK_PATH = '/strict/receiver-check';

export interface ReceiverCheckSettings { url: string; secret: string; allowHttp: boolean; unsigned: boolean; origin: 'ces check' | 'target sink_url' }

const env = (k: string): string | undefined => (process.env[k] && process.env[k]!.length ? process.env[k] : undefined);

/** Secrets of the embedded stack's fake connector and sink: a private file named by the ready info (reference-impl/stack.ts). */
function stackSecrets(target: Target): { connector_secret?: string; sink_secret?: string } {
  const file = (target as Target & { secrets_file?: string }).secrets_file;
  if (!file || !fs.existsSync(file)) return {};
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as { connector_secret?: string; sink_secret?: string };
  addSecret(s.connector_secret);
  addSecret(s.sink_secret);
  return s;
}

/** Reads a script: a JSON array of visitor texts, given inline or as a file path. */
export function parseScript(value: string): string[] {
  const text = value.trim().startsWith('[') ? value : fs.readFileSync(value, 'utf8');
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new Error(`a script is a non-empty JSON array of visitor texts (use "${QUICK_REPLY_STEP}" to click a quick reply)`);
  }
  return parsed as string[];
}

let connectorCache: ConnectorCheckSettings | undefined;
export function connectorSettings(target: Target): ConnectorCheckSettings {
  if (connectorCache) return connectorCache;
  const fromCheck = env(CHECK_ENV.connectorUrl);
  const url = fromCheck ?? target.connector_url;
  if (!url) throw new Error(`no connector to check: set ${CHECK_ENV.connectorUrl} (ces check connector URL) or give connector_url in the target`);
  const secret = env(CHECK_ENV.connectorSecret) ?? stackSecrets(target).connector_secret ?? '';
  addSecret(secret);
  connectorCache = {
    url: url.replace(/\/+$/, ''),
    secret,
    connectorVersion: env(CHECK_ENV.connectorVersion) ?? runConnectorVersion(),
    website: env(CHECK_ENV.website) ?? DEFAULT_WEBSITE,
    language: env(CHECK_ENV.language) ?? DEFAULT_LANGUAGE,
    allowHttp: env(CHECK_ENV.allowHttp) === '1',
    unsigned: env(CHECK_ENV.unsigned) === '1',
    conversations: Math.max(1, Number(env(CHECK_ENV.conversations) ?? DEFAULT_CONVERSATIONS) || DEFAULT_CONVERSATIONS),
    script: env(CHECK_ENV.script) ? parseScript(env(CHECK_ENV.script)!) : !fromCheck && target.reference ? [...REFERENCE_SCRIPT] : [...DEFAULT_SCRIPT],
    origin: fromCheck ? 'ces check' : 'target connector_url',
  };
  return connectorCache;
}

let receiverCache: ReceiverCheckSettings | undefined;
export function receiverSettings(target: Target): ReceiverCheckSettings {
  if (receiverCache) return receiverCache;
  const fromCheck = env(CHECK_ENV.receiverUrl);
  // The embedded sink is judged on its strict path, where it refuses unsigned or badly signed deliveries as a careful receiver does.
  const url = fromCheck ?? (target.sink_url ? `${target.sink_url.replace(/\/+$/, '')}${STRICT_SINK_PATH}` : undefined);
  if (!url) throw new Error(`no webhook receiver to check: set ${CHECK_ENV.receiverUrl} (ces check webhook-receiver URL) or give sink_url in the target`);
  const secret = env(CHECK_ENV.receiverSecret) ?? stackSecrets(target).sink_secret ?? '';
  addSecret(secret);
  receiverCache = { url, secret, allowHttp: env(CHECK_ENV.allowHttp) === '1', unsigned: env(CHECK_ENV.unsigned) === '1', origin: fromCheck ? 'ces check' : 'target sink_url' };
  return receiverCache;
}

/** Why a check run has nothing to check: neither `ces check` nor the target names a URL (then every check is skipped with this reason). */
export function missingUrl(target: Target, kind: 'connector' | 'receiver'): string | undefined {
  if (kind === 'connector') return env(CHECK_ENV.connectorUrl) ?? target.connector_url ? undefined : 'target lacks connector_url (run `ces check connector URL` to check a connector)';
  return env(CHECK_ENV.receiverUrl) ?? target.sink_url ? undefined : 'target lacks sink_url (run `ces check webhook-receiver URL` to check a receiver)';
}

/** Why the other checks are skipped when the URL is plain http and --allow-http was not given; undefined when they run. */
export function httpBlocker(url: string, allowHttp: boolean, clause: string): string | undefined {
  if (url.startsWith('https://') || allowHttp) return undefined;
  return `the URL is not HTTPS (${clause} failed): the service would not call it; add --allow-http to check the rest during local development`;
}
