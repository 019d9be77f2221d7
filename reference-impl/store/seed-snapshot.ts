// The seeded rows kept on disk, keyed by everything they come from: a new stack copies them instead of seeding again (about 0.25 CPU-s each: faker, 2,000 inserts, scrypt).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { DEFAULT_PLAN, seed, seedInputs, type SeedPlan } from './seed.js';
import type { Db } from './db.js';

/** Bumped when the way a snapshot is written or read changes: every older snapshot is then unused. */
const FORMAT = 1;
const DAY = 86_400_000;

export interface SnapshotOptions {
  /** The folder of the snapshots; `off` seeds every time. Default: CES_SEED_CACHE, else `ces-seed-cache-<uid>` of the temporary folder. */
  dir?: string;
  plan?: SeedPlan;
  now?: number;
}

/** What seedStore did: seeded (no usable snapshot; one written if the folder allows), or copied from a snapshot. */
export type SeedSource = 'seeded' | 'snapshot';

/**
 * Fills an empty store with the seed's rows, as seed() does (same rows, same ids, same AUTOINCREMENT counters): from a snapshot
 * taken by an earlier seeding of the same inputs (seed value, plan, day, the seed's code and constants, faker's version, the store's
 * schema), else by seeding and then writing the snapshot. A store that already holds rows is seeded as before, with no snapshot.
 */
export async function seedStore(db: Db, seedValue: number, options: SnapshotOptions = {}): Promise<SeedSource> {
  const { plan = DEFAULT_PLAN, now = Date.now() } = options;
  const folder = snapshotFolder(options.dir ?? process.env.CES_SEED_CACHE);
  const tables = userTables(db);
  if (!folder || tables.some((t) => db.prepare(`SELECT 1 FROM "${t}" LIMIT 1`).get())) {
    await seed(db, seedValue, plan, now);
    return 'seeded';
  }
  const file = path.join(folder, `${snapshotKey(db, seedValue, plan, now)}.db`);
  if (fs.existsSync(file) && copyFrom(db, file, tables)) return 'snapshot';
  await seed(db, seedValue, plan, now);
  // Written from a store in memory only: a file's rows may still sit in its write-ahead log, beside the pages serialize() reads.
  if (db.memory) writeSnapshot(db, file);
  return 'seeded';
}

/** The snapshot folder, created private to this user; undefined (no snapshots) when off, or when it is not this user's alone. */
function snapshotFolder(setting: string | undefined): string | undefined {
  if (setting === 'off') return undefined;
  const dir = setting ? path.resolve(setting) : path.join(os.tmpdir(), `ces-seed-cache-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dir);
    // Another user's folder, or one others may write to, could hold planted rows: seed instead.
    if ((typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch { return undefined; }
}

const userTables = (db: Db): string[] =>
  (db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid").all() as Array<{ name: string }>).map((r) => r.name);

/**
 * Everything the seeded rows depend on. The seed's code is keyed by its text (its helpers and the constants it reads by value), so
 * an edit of seed.ts makes a new key even where the build keeps the file's name; faker's version, as its generators change.
 */
function snapshotKey(db: Db, seedValue: number, plan: SeedPlan, now: number): string {
  const schema = (db.prepare('SELECT type, name, sql FROM main.sqlite_master ORDER BY name').all() as unknown[]);
  const faker = (createRequire(import.meta.url)('@faker-js/faker/package.json') as { version: string }).version;
  return crypto.createHash('sha256')
    .update(JSON.stringify([FORMAT, seedValue, plan, Math.floor(now / DAY), faker, seedInputs(), schema]))
    .digest('hex').slice(0, 32);
}

/** Copies every table's rows and the AUTOINCREMENT counters from the snapshot, in one transaction; false (nothing copied) on any failure. */
function copyFrom(db: Db, file: string, tables: string[]): boolean {
  try {
    db.prepare('ATTACH DATABASE ? AS snapshot').run(file);
  } catch { return false; }
  try {
    db.transaction(() => {
      // The tables are filled in creation order; a reference to a later table is checked at the commit.
      db.pragma('defer_foreign_keys = ON');
      // exec, not prepare: the store keeps its prepared statements (store/db.ts), and these name a schema detached below.
      db.exec(tables.map((t) => `INSERT INTO main."${t}" SELECT * FROM snapshot."${t}";`).join('\n'));
      if (db.prepare("SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'").get()) {
        db.exec('DELETE FROM main.sqlite_sequence; INSERT INTO main.sqlite_sequence SELECT * FROM snapshot.sqlite_sequence;');
      }
    })();
    return true;
  } catch {
    return false;
  } finally {
    db.exec('DETACH DATABASE snapshot');
  }
}

/**
 * Writes the store as it is after seeding (whole or absent: written aside, then renamed). Its header says rollback journal, not
 * WAL, so that attaching it only reads it (a WAL file would get -wal and -shm files beside it from every reader).
 */
function writeSnapshot(db: Db, file: string): void {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    const image = db.serialize();
    image[18] = 1;
    image[19] = 1;
    fs.writeFileSync(tmp, image, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    try { fs.rmSync(tmp, { force: true }); } catch { /* nothing to clean */ }
  }
}
