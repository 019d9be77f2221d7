// One lock on the target's service clock for every suite: real-time checks hold it shared, checks that move the clock hold it alone.
// Parallel workers share one service clock; a jump fires pending timers (webhook retries, awaits, transfer timeouts) early.
// The lock is a folder of marker files keyed by the target, so it works for any target and needs nothing from the server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Target } from '../lib/target.js';
import { HarnessError, checkDeadline } from './verdicts.js';

export type ClockLockMode = 'shared' | 'exclusive';

/** How long a section waits for the other kind before failing (reported as a harness problem, never as a verdict). */
const WAIT_MS = 180_000;

function dirFor(target: Pick<Target, 'base_url'>): string {
  const d = path.join(os.tmpdir(), 'ces-clock-lock-' + crypto.createHash('sha256').update(target.base_url).digest('hex').slice(0, 12));
  fs.mkdirSync(d, { recursive: true });
  return d;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** Live markers of a kind, oldest first; markers left by dead processes (an aborted run) are removed. */
function markers(dir: string, kind: 'shared' | 'exclusive'): string[] {
  return fs.readdirSync(dir).filter((f) => {
    if (!f.startsWith(kind + '-')) return false;
    if (alive(Number(f.split('-')[2]))) return true;
    fs.rmSync(path.join(dir, f), { force: true });
    return false;
  }).sort();
}

/** Waits for `cond`, at most WAIT_MS and never past the running check's own deadline (no wait of the harness outlives its check). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  const deadline = Math.min(started + WAIT_MS, checkDeadline());
  while (!cond()) {
    if (Date.now() > deadline) throw new HarnessError('clock', `waited ${Math.round((Date.now() - started) / 1000)} s for ${what} (the clock lock of the suites, suites/clock-lock.ts)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `<kind>-<zero-padded time>-<pid>-<uuid>`: names sort by arrival, so exclusive holders go first come, first served. */
const markerName = (kind: ClockLockMode) => `${kind}-${String(Date.now()).padStart(15, '0')}-${process.pid}-${crypto.randomUUID()}`;

/**
 * Runs fn holding the clock lock. `shared`: fn relies on real-time timers (several may run together; none while the clock moves).
 * `exclusive`: fn moves the clock (alone: waits for running shared sections and earlier exclusive ones; new shared ones wait for it).
 */
export async function withClockLock<T>(target: Pick<Target, 'base_url'>, mode: ClockLockMode, fn: () => Promise<T>): Promise<T> {
  // Re-entrant within one worker process (a fixture holds the lock and a helper inside asks again): a nested request of a
  // mode already held, or shared inside exclusive, runs at once; exclusive inside shared would wait for itself, so it is refused.
  const key = target.base_url;
  const held = holding.get(key);
  if (held) {
    if (mode === 'exclusive' && held.mode === 'shared') throw new HarnessError('check-bug', 'a check holding the clock lock shared (real-time timers) cannot move the service clock');
    held.depth++;
    try { return await fn(); } finally { held.depth--; }
  }
  holding.set(key, { mode, depth: 1 });
  try { return await acquire(target, mode, fn); } finally { holding.delete(key); }
}

const holding = new Map<string, { mode: ClockLockMode; depth: number }>();

async function acquire<T>(target: Pick<Target, 'base_url'>, mode: ClockLockMode, fn: () => Promise<T>): Promise<T> {
  const dir = dirFor(target);
  if (mode === 'exclusive') {
    const name = markerName('exclusive');
    fs.writeFileSync(path.join(dir, name), '');
    try {
      await until(() => markers(dir, 'exclusive')[0] === name && markers(dir, 'shared').length === 0, 'real-time checks and earlier clock moves to finish before moving the clock');
      return await fn();
    } finally { fs.rmSync(path.join(dir, name), { force: true }); }
  }
  const me = path.join(dir, markerName('shared'));
  for (;;) {
    await until(() => markers(dir, 'exclusive').length === 0, 'a service-clock move of another check to finish');
    fs.writeFileSync(me, '');
    if (markers(dir, 'exclusive').length === 0) break;
    fs.rmSync(me, { force: true });
  }
  try { return await fn(); } finally { fs.rmSync(me, { force: true }); }
}
