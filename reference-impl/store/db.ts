// Opens the SQLite store (`:memory:` or a file) and applies the core schema and every area's `reference-impl/<area>/schema.sql`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;
const IMPL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function openDb(file = ':memory:'): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(fs.readFileSync(path.join(IMPL, 'store', 'schema.sql'), 'utf8'));
  for (const area of fs.readdirSync(IMPL).sort()) {
    const f = path.join(IMPL, area, 'schema.sql');
    if (area !== 'store' && fs.existsSync(f)) db.exec(fs.readFileSync(f, 'utf8'));
  }
  return db;
}

export function getMeta(db: Db, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** JSON list columns. */
export const list = <T = number>(s: string | null | undefined): T[] => (s ? (JSON.parse(s) as T[]) : []);
