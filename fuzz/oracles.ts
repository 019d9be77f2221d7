// Checks every fuzzed answer must pass, whatever the surface: an answer at all, no 5xx, no internals, in time, and no other client's data.
import { LIMITS } from '../lib/limits.js';
import type { Answer } from './exchange.js';

/** What a failed check found; `oracle` names the check; `key` (default: the oracle) tells failures of one operation apart (e.g. by status). */
export interface Finding { oracle: string; message: string; key?: string }
export const keyOf = (f: Finding) => f.key ?? f.oracle;

/** Texts only internals produce: SQLite errors, stack frames, source paths. */
const INTERNALS: Array<[RegExp, string]> = [
  [/SQLITE_[A-Z]+|no such (table|column)|near "[^"]*": syntax error|UNIQUE constraint failed|FOREIGN KEY constraint/i, 'SQL error text'],
  [/\bat (async )?[\w$.<>]+ \((file:\/\/|node:|\/)[^)]*:\d+:\d+\)|\n\s+at [^\n]+:\d+:\d+/, 'a stack trace'],
  [/(\/home\/|\/work\/|\/usr\/lib\/node|node_modules\/|file:\/\/\/|[A-Z]:\\\\Users)[^\s"']*\.(ts|js|mjs|cjs)\b/, 'a source file path'],
];

export function common(a: Answer): Finding[] {
  const out: Finding[] = [];
  if (a.status === 0) return [{ oracle: 'no-answer', message: `no answer: ${a.error ?? 'connection closed'}` }];
  if (a.status >= 500) out.push({ oracle: 'server-error', message: `answered ${a.status}: ${a.text.slice(0, 200)}` });
  for (const [re, what] of INTERNALS) {
    const m = re.exec(a.text);
    if (m) out.push({ oracle: 'internals-leak', message: `the answer shows ${what}: …${a.text.slice(Math.max(0, m.index - 40), m.index + 80)}…` });
  }
  if (a.ms > LIMITS.fuzzAnswerMaxMs) out.push({ oracle: 'slow-answer', message: `answered in ${Math.round(a.ms)} ms (limit ${LIMITS.fuzzAnswerMaxMs} ms)` });
  return out;
}

/**
 * Ids a client owns and the other clients never see, per kind of resource (`operator`, `Project`...): found by listing everything
 * each client can list before fuzzing. An answer to one client that shows an id only another client owns is a leak.
 */
export class Ownership {
  private seen: Array<Map<string, Set<string>>> = [];
  add(client: number, kind: string, id: string | number): void {
    const byKind = (this.seen[client] ??= new Map());
    let s = byKind.get(kind);
    if (!s) byKind.set(kind, (s = new Set()));
    s.add(String(id));
  }
  clients(): number { return this.seen.length; }
  /** Ids of a kind that several clients see: shared, or one list leaking (the detail read of each client decides). */
  overlaps(): Array<{ kind: string; id: string; clients: number[] }> {
    const out: Array<{ kind: string; id: string; clients: number[] }> = [];
    for (const kind of this.kinds()) {
      for (const id of this.ids(kind)) {
        const clients = this.seen.flatMap((m, c) => (m?.get(kind)?.has(id) ? [c] : []));
        if (clients.length > 1) out.push({ kind, id, clients });
      }
    }
    return out;
  }
  /** A client's own read of the id refused it: the id is not the client's, whatever a list showed. */
  remove(client: number, kind: string, id: string): void { this.seen[client]?.get(kind)?.delete(id); }
  /** Client owning `id` of `kind` alone, other than `asker`; undefined when `asker` sees it too or nobody owns it alone. */
  ownerOtherThan(asker: number, kind: string, id: string | number): number | undefined {
    const k = String(id);
    if (this.seen[asker]?.get(kind)?.has(k)) return undefined;
    const owner = this.seen.findIndex((m, c) => c !== asker && m?.get(kind)?.has(k));
    return owner >= 0 ? owner : undefined;
  }
  /** Ids of a kind that `client` itself listed, in the order seen. */
  idsOf(client: number, kind: string): string[] { return [...(this.seen[client]?.get(kind) ?? [])]; }
  /** Every id seen for a kind (any client): path and argument values for cross-client requests. */
  ids(kind: string): string[] { return [...new Set(this.seen.flatMap((m) => [...(m?.get(kind) ?? [])]))]; }
  kinds(): string[] { return [...new Set(this.seen.flatMap((m) => [...(m?.keys() ?? [])]))]; }
  count(client: number): number { return [...(this.seen[client]?.values() ?? [])].reduce((n, s) => n + s.size, 0); }
}
