// Keeps real-time webhook timing checks and service-clock jumps apart: parallel workers share one service clock, and a jump fires pending retries early.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How long a section waits for the other kind to finish before failing (a harness problem, reported as such). */
const WAIT_MS = 180_000;

function dirFor(baseUrl: string): string {
  const d = path.join(os.tmpdir(), 'ces-clock-lock-' + crypto.createHash('sha256').update(baseUrl).digest('hex').slice(0, 12));
  fs.mkdirSync(d, { recursive: true });
  return d;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** Live markers of a kind; markers of dead processes (an aborted run) are removed. */
function markers(dir: string, kind: 'timing' | 'clock'): string[] {
  return fs.readdirSync(dir).filter((f) => {
    if (!f.startsWith(kind + '-')) return false;
    const pid = Number(f.split('-')[1]);
    if (alive(pid)) return true;
    fs.rmSync(path.join(dir, f), { force: true });
    return false;
  });
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`harness: waited ${WAIT_MS / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs fn while no clock jump may happen (real-time retry timings). Several timing sections may run together. */
export async function timingSection<T>(baseUrl: string, fn: () => Promise<T>): Promise<T> {
  const dir = dirFor(baseUrl);
  const me = path.join(dir, `timing-${process.pid}-${crypto.randomUUID()}`);
  for (;;) {
    await until(() => markers(dir, 'clock').length === 0, 'a service-clock jump of another check to finish');
    fs.writeFileSync(me, '');
    if (markers(dir, 'clock').length === 0) break;
    fs.rmSync(me, { force: true });
  }
  try { return await fn(); } finally { fs.rmSync(me, { force: true }); }
}

/** Runs fn (which moves the service clock) alone: waits until no timing section runs, and holds new ones back meanwhile. */
export async function clockSection<T>(baseUrl: string, fn: () => Promise<T>): Promise<T> {
  const dir = dirFor(baseUrl);
  const me = path.join(dir, `clock-${process.pid}-${crypto.randomUUID()}`);
  fs.writeFileSync(me, '');
  try {
    await until(() => markers(dir, 'timing').length === 0, 'real-time webhook timing checks to finish before moving the clock');
    return await fn();
  } finally { fs.rmSync(me, { force: true }); }
}
