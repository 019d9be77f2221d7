// JSON edits: the small language deviations use at the response/request seams (drop, rename or change a value at a path), so no domain code tests for them.

/**
 * One edit of a JSON document. `at` is a dotted path from the root; `*` stands for every item of an array (or every value of
 * an object). Exactly one operation:
 * - `drop`: remove the value at `at`;
 * - `rename`: move the value at `at` to the sibling key named so;
 * - `set`: replace the value at `at` (only where it exists);
 * - `map`: replace the value at `at` when it equals `map[0]`, by `map[1]`;
 * - `as`: convert the value at `at`: `string`, `first` (a list becomes its first item), `upper`, `lower`, `reverse` (a list),
 *   `plus-one` (a number), `times-1000` (a number), `no-millis` (ISO date without milliseconds), `z` (`+00:00` → `Z`);
 * - `replace`: `[pattern, replacement]` on a string value (a plain regular expression of the deviation's data, never of a user).
 */
export interface JsonEdit {
  at: string;
  drop?: true;
  rename?: string;
  set?: unknown;
  map?: [unknown, unknown];
  as?: 'string' | 'first' | 'upper' | 'lower' | 'reverse' | 'plus-one' | 'times-1000' | 'no-millis' | 'z';
  replace?: [string, string];
}

const CONVERT: Record<NonNullable<JsonEdit['as']>, (v: any) => unknown> = {
  string: (v) => (v === null || v === undefined ? v : String(v)),
  first: (v) => (Array.isArray(v) ? v[0] : v),
  upper: (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  lower: (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  reverse: (v) => (Array.isArray(v) ? [...v].reverse() : v),
  'plus-one': (v) => (typeof v === 'number' ? v + 1 : v),
  'times-1000': (v) => (typeof v === 'number' ? v * 1000 : v),
  'no-millis': (v) => (typeof v === 'string' ? v.replace(/\.\d{3}Z$/, 'Z') : v),
  z: (v) => (typeof v === 'string' ? v.replace(/\+00:00$/, 'Z') : v),
};

/** Every (container, key) the path points at. */
function targets(root: unknown, path: string[]): Array<[Record<string, unknown> | unknown[], string]> {
  if (!path.length) return [];
  let level: unknown[] = [root];
  for (const step of path.slice(0, -1)) {
    level = level.flatMap((node) => {
      if (!node || typeof node !== 'object') return [];
      if (step === '*') return Object.values(node as object);
      return [(node as Record<string, unknown>)[step]];
    });
  }
  const last = path[path.length - 1]!;
  return level.flatMap((node) => {
    if (!node || typeof node !== 'object') return [];
    const keys = last === '*' ? Object.keys(node as object) : Object.prototype.hasOwnProperty.call(node, last) ? [last] : [];
    return keys.map((k) => [node as Record<string, unknown>, k] as [Record<string, unknown>, string]);
  });
}

/** Applies edits in order to `doc` (changed in place) and returns it; `$` as `at` edits the root value itself. */
export function applyEdits<T>(doc: T, edits: readonly JsonEdit[]): T {
  let root: unknown = doc;
  for (const e of edits) {
    if (e.at === '$') {
      if (e.set !== undefined) root = e.set;
      else if (e.as) root = CONVERT[e.as](root);
      continue;
    }
    for (const [node, key] of targets(root, e.at.split('.'))) {
      const obj = node as Record<string, unknown>;
      const value = obj[key];
      if (e.drop) { if (Array.isArray(node)) node.splice(Number(key), 1); else delete obj[key]; }
      else if (e.rename !== undefined) { delete obj[key]; obj[e.rename] = value; }
      else if (e.set !== undefined) obj[key] = e.set;
      else if (e.map) { if (value === e.map[0]) obj[key] = e.map[1]; }
      else if (e.as) obj[key] = CONVERT[e.as](value);
      else if (e.replace && typeof value === 'string') obj[key] = value.replace(new RegExp(e.replace[0]), e.replace[1]);
    }
  }
  return root as T;
}

/** The reason an edit is malformed, or null (the registry test checks every deviation's edits). */
export function editError(e: unknown): string | null {
  if (!e || typeof e !== 'object') return 'an edit is an object';
  const x = e as Record<string, unknown>;
  if (typeof x.at !== 'string' || !x.at) return '"at" is a dotted path';
  const ops = ['drop', 'rename', 'set', 'map', 'as', 'replace'].filter((k) => x[k] !== undefined);
  if (ops.length !== 1) return `exactly one of drop, rename, set, map, as, replace (got ${ops.join(', ') || 'none'})`;
  if (x.as !== undefined && !(String(x.as) in CONVERT)) return `"as" is one of ${Object.keys(CONVERT).join(', ')}`;
  if (x.map !== undefined && !(Array.isArray(x.map) && x.map.length === 2)) return '"map" is [from, to]';
  if (x.replace !== undefined && !(Array.isArray(x.replace) && x.replace.length === 2 && x.replace.every((s) => typeof s === 'string'))) return '"replace" is [pattern, replacement]';
  return null;
}
