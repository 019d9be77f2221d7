// Opens the SQLite store (`:memory:` or a file) and applies the core schema and every area's `reference-impl/<area>/schema.sql`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;
const IMPL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Distinct SQL texts kept prepared per database (dynamic UPDATEs make a few hundred at most); past this the cache starts over. */
const STATEMENTS_KEPT = 2_000;

export function openDb(file = ':memory:'): Db {
  const db = new Database(file);
  // Prepared once per stack: better-sqlite3 caches nothing, and preparing every statement of every request was a third of the
  // service's CPU. Statements are only run with get/all/run (never iterated, plucked or made raw), so one instance per SQL text is safe.
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let st = statements.get(sql);
    if (!st) {
      if (statements.size >= STATEMENTS_KEPT) statements.clear();
      st = prepare(sql);
      statements.set(sql, st);
    }
    return st;
  }) as Db['prepare'];
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

/**
 * A reader of the rows inserted, updated or deleted through this stack's connection so far (SQLite total_changes()): equal counts,
 * same data. The statement is prepared once, when the reader is made: it is read on every request of the hottest route.
 */
export function changesCounter(db: Db): () => number {
  const stmt = db.prepare('SELECT total_changes()').pluck();
  return () => stmt.get() as number;
}

export function getMeta(db: Db, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** JSON list columns. */
export const list = <T = number>(s: string | null | undefined): T[] => (s ? (JSON.parse(s) as T[]) : []);
