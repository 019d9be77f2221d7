// What the workers of one check run share through its run folder: whether the partner stopped answering (and since when), and the bots created for the run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { preflight } from './preflight.js';

/** The folder of the run's shared files (`ces check` and `ces test` give CES_RUN_DIR). */
export const sharedDir = (runDir = process.env.CES_RUN_DIR ?? path.join(os.tmpdir(), `ces-check-${process.ppid}`)): string => path.join(runDir, 'check');

export interface PartnerDown { since: string; cause: string }

/** The partner-down record of the run, if the partner stopped answering. */
export function partnerDown(runDir?: string): PartnerDown | undefined {
  const f = path.join(sharedDir(runDir), 'partner-down.json');
  try { return JSON.parse(fs.readFileSync(f, 'utf8')) as PartnerDown; } catch { return undefined; }
}

/**
 * After a call that got no answer: connects once more, as the pre-flight did. When that fails too, the partner stopped
 * answering altogether: the first worker to see it records since when (later ones keep the first record). True when down.
 */
export async function confirmPartnerDown(url: string, caFile: string | undefined, failedAt: Date, cause: string, runDir?: string): Promise<boolean> {
  if (partnerDown(runDir)) return true;
  const again = await preflight(url, caFile);
  if (again.ok) return false;
  const dir = sharedDir(runDir);
  fs.mkdirSync(dir, { recursive: true });
  try { fs.writeFileSync(path.join(dir, 'partner-down.json'), JSON.stringify({ since: failedAt.toISOString(), cause: `${cause}; then ${again.message}` }), { flag: 'wx' }); } catch { /* another worker recorded it first */ }
  return true;
}

/** Records a bot the run created (PUT /bots answered 2xx), so it can be removed at the end. */
export function recordBot(idOperator: string, runDir?: string): void {
  const dir = sharedDir(runDir);
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, 'bots-created.txt'), `${idOperator}\n`);
}

/** The bots the run created, each once. */
export function botsCreated(runDir?: string): string[] {
  try { return [...new Set(fs.readFileSync(path.join(sharedDir(runDir), 'bots-created.txt'), 'utf8').split('\n').filter(Boolean))]; } catch { return []; }
}
