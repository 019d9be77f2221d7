// The seed's snapshots (reference-impl/store/seed-snapshot.ts): a store filled from one holds exactly the rows, ids and counters of a fresh seeding; any change of input makes a new one; a broken one is never used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type Db } from '../reference-impl/store/db.js';
import { seedStore } from '../reference-impl/store/seed-snapshot.js';

const NOW = Date.UTC(2026, 10, 28, 9, 30);

/** Every row of every table (rowid included) and the AUTOINCREMENT counters, as text. */
function dump(db: Db): string {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  return JSON.stringify(tables.map((t) => [t, db.prepare(`SELECT ${t === 'sqlite_sequence' ? '' : 'rowid AS _rowid, '}* FROM "${t}" ORDER BY 1, 2`).all()]));
}
const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ces-seed-snapshot-test-'));
const snapshots = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.db'));

test('a store filled from the snapshot equals a fresh seeding: rows, rowids, counters, and the next id an insert gets', async () => {
  const dir = folder();
  const fresh = openDb();
  assert.equal(await seedStore(fresh, 42, { dir: 'off', now: NOW }), 'seeded');
  const first = openDb();
  assert.equal(await seedStore(first, 42, { dir, now: NOW }), 'seeded');
  assert.equal(snapshots(dir).length, 1, 'the first seeding wrote its snapshot');
  const copied = openDb();
  assert.equal(await seedStore(copied, 42, { dir, now: NOW }), 'snapshot');
  assert.ok(dump(fresh).length > 100_000, 'the seed has rows');
  assert.equal(dump(copied), dump(fresh));
  assert.equal(dump(first), dump(fresh));
  // AUTOINCREMENT: a deleted operator's id is never given again, from a snapshot as from a seeding.
  const next = (db: Db) => {
    const max = (db.prepare('SELECT max(id) AS m FROM operators').get() as { m: number }).m;
    const cols = (db.prepare('PRAGMA table_info(operators)').all() as Array<{ name: string }>).map((c) => `"${c.name}"`).filter((c) => c !== '"id"').join(', ');
    db.pragma('foreign_keys = OFF');
    db.prepare(`CREATE TEMP TABLE kept AS SELECT ${cols} FROM operators WHERE id = ?`).run(max);
    db.prepare('DELETE FROM operators WHERE id = ?').run(max);
    return Number(db.prepare(`INSERT INTO operators (${cols}) SELECT ${cols} FROM temp.kept`).run().lastInsertRowid);
  };
  assert.equal(next(copied), next(fresh));
  for (const f of fs.readdirSync(dir)) assert.ok(!/-(wal|shm)$/.test(f), `reading the snapshot left no ${f}`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('another seed value, another day or a store holding rows: no snapshot of the first is used', async () => {
  const dir = folder();
  await seedStore(openDb(), 42, { dir, now: NOW });
  const other = openDb();
  assert.equal(await seedStore(other, 7, { dir, now: NOW }), 'seeded');
  const fresh7 = openDb();
  await seedStore(fresh7, 7, { dir: 'off', now: NOW });
  assert.equal(dump(other), dump(fresh7));
  assert.equal(await seedStore(openDb(), 42, { dir, now: NOW + 86_400_000 }), 'seeded', 'the next day dates its history anew');
  assert.equal(snapshots(dir).length, 3);
  const busy = openDb();
  busy.prepare("INSERT INTO meta(key, value) VALUES ('x', 'y')").run();
  assert.equal(await seedStore(busy, 42, { dir, now: NOW }), 'seeded');
  assert.equal(snapshots(dir).length, 3, 'a store that held rows writes no snapshot');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a broken snapshot is seeded over and written again; a folder others may write to is not used', async () => {
  const dir = folder();
  await seedStore(openDb(), 42, { dir, now: NOW });
  const [file] = snapshots(dir);
  fs.writeFileSync(path.join(dir, file!), 'not a database');
  const db = openDb();
  assert.equal(await seedStore(db, 42, { dir, now: NOW }), 'seeded');
  const fresh = openDb();
  await seedStore(fresh, 42, { dir: 'off', now: NOW });
  assert.equal(dump(db), dump(fresh));
  assert.equal(await seedStore(openDb(), 42, { dir, now: NOW }), 'snapshot', 'written again');
  const open = folder();
  fs.chmodSync(open, 0o777);
  assert.equal(await seedStore(openDb(), 42, { dir: open, now: NOW }), 'seeded');
  assert.deepEqual(snapshots(open), [], 'nothing written there');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(open, { recursive: true, force: true });
});

test('a store in a file (WAL) is filled from the snapshot as one in memory, and writes none when seeded', async () => {
  const dir = folder();
  const work = folder();
  await seedStore(openDb(), 42, { dir, now: NOW });
  const onDisk = openDb(path.join(work, 'service.db'));
  assert.equal(await seedStore(onDisk, 42, { dir, now: NOW }), 'snapshot');
  const fresh = openDb();
  await seedStore(fresh, 42, { dir: 'off', now: NOW });
  assert.equal(dump(onDisk), dump(fresh));
  onDisk.close();
  assert.equal(dump(openDb(path.join(work, 'service.db'))), dump(fresh), 'and kept on disk');
  // Seeded in a file, it writes no snapshot (its rows may be in the write-ahead log).
  const otherDir = folder();
  assert.equal(await seedStore(openDb(path.join(work, 'other.db')), 42, { dir: otherDir, now: NOW }), 'seeded');
  assert.deepEqual(snapshots(otherDir), []);
  fs.rmSync(otherDir, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});
