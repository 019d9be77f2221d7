// Deliberate deviations (`--deviate ID`): each breaks one clause on purpose so `ces selftest` can prove a check fails.
import { deviationIds } from '../lib/catalogue.js';

export class Deviations {
  private on = new Set<string>();
  constructor(ids: string[] = []) { this.set(ids); }

  /** True when deviation `id` is switched on. Call sites name ids listed in fixtures/deviations/. */
  has(id: string): boolean { return this.on.has(id); }
  list(): string[] { return [...this.on]; }

  /** Replaces the active set; throws on an id not in the catalogue, so a typo never silently tests nothing. */
  set(ids: string[]): void {
    const known = deviationIds();
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) throw new UnknownDeviationError(unknown);
    this.on = new Set(ids);
  }
  clear(): void { this.on.clear(); }
}

export class UnknownDeviationError extends Error {
  constructor(public ids: string[]) {
    super(`unknown deviation id(s): ${ids.join(', ')}; run \`ces selftest --list\` to see the catalogue`);
  }
}
