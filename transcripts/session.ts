// Where conversations are held: the embedded reference service pointed at a vendor's connector (its bot set up by the creation flow), or a service target's simulation API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../reference-impl/stack.js';
import { addSecret, mask } from '../lib/mask.js';
import type { Target } from '../lib/target.js';
import { SetupError, SimClient } from './service.js';
import { extraCas, preflight } from '../check/preflight.js';
import type { TranscriptMeta } from './from-service.js';
import type { Transcript } from './format.js';
import { requireSqlite } from '../lib/optional-parts.js';

/** How long the bot creation flow (endpoints 1-3) and the first availability polls (endpoint 4) may take at start. */
const BOT_READY_MS = 15_000;
const POLL_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Session {
  sim: SimClient;
  /** What a conversation with the scenario `want.idBot` (a transcript's, or any for a new recording) needs: the website to start on and the transcript's metadata. */
  prepare(want?: Want): Promise<Omit<TranscriptMeta, 'name' | 'by'>>;
  describe: string;
  close(): Promise<void>;
}

/** The bot a conversation wants: a scenario, and (targets) the website it was recorded on. */
export interface Want { idBot?: string | null; websiteId?: string; connectorUrl?: string }
export const wantOf = (t: Transcript): Want => ({ idBot: t.bot.idBot, websiteId: t.website.id, connectorUrl: t.connector.url });

type SimBot = Awaited<ReturnType<SimClient['bots']>>[number];

/** Waits for a bot operator to be set up on the connector and available (its routing rule then sends conversations to it). */
async function readyBot(sim: SimClient, pick: (bots: SimBot[]) => SimBot | undefined, what: string): Promise<SimBot> {
  const until = Date.now() + BOT_READY_MS;
  let last: SimBot | undefined;
  while (Date.now() < until) {
    last = pick(await sim.bots());
    if (last?.status === 'ready' && last.available) return last;
    await sleep(POLL_MS);
  }
  if (!last) throw new SetupError(`${what}: no bot operator found in GET {sim_url}/bots`);
  if (last.status !== 'ready') throw new SetupError(`${what}: the bot creation flow failed (${last.setupError ?? last.status}); check the connector URL, --secret and --ca-file`);
  throw new SetupError(`${what}: the connector reports bot ${last.operatorId} unavailable (endpoint 4${last.lastError ? `: ${last.lastError}` : ''}); a conversation would go to a human operator`);
}

const metaOf = (bot: SimBot, connectorUrl: string): Omit<TranscriptMeta, 'name' | 'by'> => ({
  connectorUrl, rules: bot.distributionRules.map((r) => ({ id: r.id, label: r.label })), idBot: bot.idBot,
  ...(bot.pseudo ? { pseudo: bot.pseudo } : {}), ...(bot.languages?.[0] ? { language: bot.languages[0] } : {}), websiteId: String(bot.websiteId),
});

/**
 * The pre-flight of `ces record` and `ces replay --connector`, before the service starts: one connection to the connector, as
 * `ces check` makes it (unreachable, untrusted certificate: a SetupError with one message naming --ca-file and NODE_EXTRA_CA_CERTS).
 */
export async function preflightConnector(url: string, caFile?: string): Promise<void> {
  const pf = await preflight(url, caFile);
  if (!pf.ok) throw new SetupError(`pre-flight of ${mask(url)} failed, nothing was started: ${pf.message}`);
}

/**
 * The embedded reference service with its seeded bot on the vendor's connector, exactly as the service runs it: the bot
 * creation flow, availability polling, signed calls, first messages, timers; the clock is the service's own.
 */
export async function embeddedSession(opts: { connectorUrl: string; secret?: string; caFile?: string; allowHttp?: boolean }): Promise<Session> {
  addSecret(opts.secret);
  // SQLite not built: one line with the command that builds it (exit 2), not a stack trace from inside the stack.
  requireSqlite();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ces-transcripts-'));
  let stack: Stack;
  try {
    stack = await startStack({
      connectorUrl: opts.connectorUrl, connectorSecret: opts.secret ?? '', workDir, insecure: opts.allowHttp === true,
      // The connector is trusted as `ces check` trusts it: --ca-file and NODE_EXTRA_CA_CERTS.
      outboundCa: extraCas(opts.caFile),
    });
  } catch (e) {
    fs.rmSync(workDir, { recursive: true, force: true });
    throw new SetupError(`starting the embedded service: ${(e as Error).message}`);
  }
  const ready = stack.ready as typeof stack.ready & { sim_token?: string };
  addSecret(ready.api_key);
  addSecret(ready.sim_token);
  const sim = new SimClient({ simUrl: ready.sim_url, simToken: ready.sim_token, platformUrl: ready.platform_url, apiKey: ready.api_key, caFile: ready.ca_file, clock: true });
  const close = async () => { await stack.close(); fs.rmSync(workDir, { recursive: true, force: true }); };
  try {
    // The first seeded bot (lowest operator id) serves the first website.
    const first = await readyBot(sim, (bots) => [...bots].sort((a, b) => a.operatorId - b.operatorId)[0], `connector ${opts.connectorUrl}`);
    return {
      sim,
      describe: `the embedded reference service, bot ${first.operatorId} on ${opts.connectorUrl}`,
      async prepare(want) {
        let bot = (await sim.bots()).find((b) => b.operatorId === first.operatorId)!;
        const wanted = want?.idBot;
        if (wanted && bot.idBot !== wanted) {
          // The recorded scenario: the service's creation flow binds the bot to it (PUT /bots/{idOperator} on the connector).
          await sim.bindScenario(bot.operatorId, wanted);
          bot = await readyBot(sim, (bots) => bots.find((b) => b.operatorId === first.operatorId), `scenario ${wanted}`);
        }
        return metaOf(bot, opts.connectorUrl);
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A service target (capability `sim`): each conversation starts on the transcript's recorded website, so the same bot answers. */
export function targetSession(target: Target & { sim_token?: string }): Session {
  if (!target.capabilities.includes('sim') || !target.sim_url) throw new SetupError('the target lacks the sim capability (and sim_url): ces replay --target drives conversations through the simulation API');
  addSecret(target.api_key);
  addSecret(target.sim_token);
  const sim = new SimClient({
    simUrl: target.sim_url, simToken: target.sim_token, platformUrl: target.platform_url, apiKey: target.api_key, caFile: target.ca_file,
    clock: target.capabilities.includes('clock'),
  });
  return {
    sim,
    describe: `target ${target.base_url}`,
    async prepare(want) {
      if (!want?.websiteId) throw new SetupError('a target replays recorded transcripts only (each names its website)');
      const websiteId = want.websiteId;
      // The bots listing is an extension of the reference implementation: it names the rules (transfers by label); without it rules stay as answered.
      const bots = await sim.bots().catch(() => []);
      const bot = bots.find((b) => String(b.websiteId) === websiteId && (!want.idBot || b.idBot === want.idBot)) ?? bots.find((b) => String(b.websiteId) === websiteId);
      const connectorUrl = target.connector_url ?? want.connectorUrl ?? '';
      return bot ? { ...metaOf(bot, connectorUrl), websiteId } : { connectorUrl, rules: [], idBot: want.idBot ?? null, websiteId };
    },
    async close() {},
  };
}
