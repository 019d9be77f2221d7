// Deliberate deviations (`--deviate ID`) of one stack: which are on, and what they change at the seams — each area's policy
// (limits, timings, texts, the functions a wrong computation swaps in) and the JSON edits of the response/request hooks.
// What a deviation does is data (fixtures/deviations/*.json, read through lib/deviation-registry.ts); no domain code names one.
import { deviationRegistry, type DeviationEntry } from '../lib/deviation-registry.js';
import { applyEdits, type JsonEdit } from '../lib/json-edit.js';
import { buildPolicies, type Policies } from './policies.js';

export class Deviations {
  private on: DeviationEntry[] = [];
  private policies: Policies = buildPolicies([]);
  constructor(ids: string[] = []) { this.set(ids); }

  list(): string[] { return this.on.map((d) => d.id); }

  /** Replaces the active set; throws on an id not in the catalogue, so a typo never silently tests nothing. Nothing changes on a throw. */
  set(ids: string[]): void {
    const registry = deviationRegistry();
    const unknown = ids.filter((id) => !registry.has(id));
    if (unknown.length) throw new UnknownDeviationError(unknown);
    const on = [...new Set(ids)].map((id) => registry.get(id)!);
    this.policies = buildPolicies(on);
    this.on = on;
  }
  clear(): void { this.set([]); }

  /** The policies of every area with the active deviations applied (read at the moment of use: deviations switch at run time). */
  get policy(): Policies { return this.policies; }

  /** Whether any deviation switched on acts at `seam`: a hot path asks this before it works out where it is (its `wheres`). */
  touches(seam: string): boolean { return this.on.some((d) => d.seam === seam); }

  /** The JSON edits active at a seam (e.g. `rest.response`), those scoped to one of `wheres` (a route, endpoint, event kind or read) included. */
  edits(seam: string, ...wheres: string[]): JsonEdit[] {
    return this.on.filter((d) => d.seam === seam && (d.where === undefined || [d.where].flat().some((w) => wheres.includes(w)))).flatMap((d) => d.edits ?? []);
  }

  /** `doc` as it leaves the seam: a copy with the active edits applied, or `doc` itself when none is active. */
  edited<T>(seam: string, doc: T, ...wheres: string[]): T {
    const edits = this.edits(seam, ...wheres);
    return edits.length ? applyEdits(structuredClone(doc), edits) : doc;
  }

  /** A JSON text as it leaves the seam: parsed, edited and written again when an edit is active, else the same text (not parsed). */
  editedText(seam: string, text: string, ...wheres: string[]): string {
    const edits = this.edits(seam, ...wheres);
    return edits.length ? JSON.stringify(applyEdits(JSON.parse(text), edits)) : text;
  }
}

export class UnknownDeviationError extends Error {
  constructor(public ids: string[]) {
    super(`unknown deviation id(s): ${ids.join(', ')}; run \`ces selftest --list\` to see the catalogue`);
  }
}
