// JSON edits: the small language deviations use at the seams (drop, rename or change a value at a path), so no domain code tests for them.

/**
 * One edit of a JSON document. `at` is a dotted path from the root; `*` stands for every item of an array (or every value of
 * an object); `$` is the root value itself. Exactly one operation:
 * - `drop`: remove the value at `at`;
 * - `rename`: move the value at `at` to the sibling key named so;
 * - `set`: replace the value at `at` (only where it exists);
 * - `add`: set the value at `at`, creating the field where it is absent (its parent must exist);
 * - `map`: replace the value at `at` when it equals `map[0]`, by `map[1]`;
 * - `copy`: set the value at `at` (where it exists) to a copy of the value at the path `copy` from the root;
 * - `as`: convert the value at `at`: `string`, `first` (a list becomes its first item), `upper`, `lower`, `reverse` (a list),
 *   `drop-last` (a list loses its last item), `length` (a list or text becomes its length), `plus-one` (a number), `times-1000`
 *   (a number), `no-millis` (ISO date without milliseconds), `z` (`+00:00` → `Z`);
 * - `replace`: `[pattern, replacement]` or `[pattern, replacement, "g"]` (every match) on a string value;
 * - `dropKeys`: remove the keys of the object at `at` that match a pattern.
 * Patterns are plain regular expressions of the deviation's data (fixtures/deviations), never of a user.
 */
export interface JsonEdit {
  at: string;
  drop?: true;
  rename?: string;
  set?: unknown;
  add?: unknown;
  map?: [unknown, unknown];
  copy?: string;
  as?: 'string' | 'first' | 'upper' | 'lower' | 'reverse' | 'drop-last' | 'length' | 'plus-one' | 'times-1000' | 'no-millis' | 'z';
  replace?: [string, string] | [string, string, 'g'];
  dropKeys?: string;
}

const OPS = ['drop', 'rename', 'set', 'add', 'map', 'copy', 'as', 'replace', 'dropKeys'] as const;

const CONVERT: Record<NonNullable<JsonEdit['as']>, (v: any) => unknown> = {
  string: (v) => (v === null || v === undefined ? v : String(v)),
  first: (v) => (Array.isArray(v) ? v[0] : v),
  upper: (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  lower: (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  reverse: (v) => (Array.isArray(v) ? [...v].reverse() : v),
  'drop-last': (v) => (Array.isArray(v) ? v.slice(0, -1) : v),
  length: (v) => (Array.isArray(v) || typeof v === 'string' ? v.length : v),
  'plus-one': (v) => (typeof v === 'number' ? v + 1 : v),
  'times-1000': (v) => (typeof v === 'number' ? v * 1000 : v),
  'no-millis': (v) => (typeof v === 'string' ? v.replace(/\.\d{3}Z$/, 'Z') : v),
  z: (v) => (typeof v === 'string' ? v.replace(/\+00:00$/, 'Z') : v),
};

/** The containers one level above the path's end. */
function parents(root: unknown, path: string[]): unknown[] {
  let level: unknown[] = [root];
  for (const step of path.slice(0, -1)) {
    level = level.flatMap((node) => {
      if (!node || typeof node !== 'object') return [];
      if (step === '*') return Object.values(node as object);
      return [(node as Record<string, unknown>)[step]];
    });
  }
  return level.filter((node) => node !== null && typeof node === 'object');
}

/** Every (container, key) the path points at; with `create`, a key absent from a container is pointed at too. */
function targets(root: unknown, path: string[], create = false): Array<[Record<string, unknown>, string]> {
  if (!path.length) return [];
  const last = path[path.length - 1]!;
  return parents(root, path).flatMap((node) => {
    const keys = last === '*' ? Object.keys(node as object) : create || Object.prototype.hasOwnProperty.call(node, last) ? [last] : [];
    return keys.map((k) => [node as Record<string, unknown>, k] as [Record<string, unknown>, string]);
  });
}

/** The value at a dotted path from the root (the first one where `*` matches several), or undefined. */
function valueAt(root: unknown, path: string): unknown {
  if (path === '$') return root;
  const [hit] = targets(root, path.split('.'));
  return hit ? hit[0][hit[1]] : undefined;
}

const replaced = (v: string, r: NonNullable<JsonEdit['replace']>) => v.replace(new RegExp(r[0], r[2] ?? ''), r[1]);

/** Applies edits in order to `doc` (changed in place) and returns it; `$` as `at` edits the root value itself. */
export function applyEdits<T>(doc: T, edits: readonly JsonEdit[]): T {
  let root: unknown = doc;
  for (const e of edits) {
    if (e.at === '$') {
      if (e.set !== undefined) root = e.set;
      else if (e.copy !== undefined) root = structuredClone(valueAt(root, e.copy));
      else if (e.as) root = CONVERT[e.as](root);
      else if (e.replace && typeof root === 'string') root = replaced(root, e.replace);
      else if (e.dropKeys !== undefined && root && typeof root === 'object') for (const k of Object.keys(root)) if (new RegExp(e.dropKeys).test(k)) delete (root as Record<string, unknown>)[k];
      continue;
    }
    for (const [node, key] of targets(root, e.at.split('.'), e.add !== undefined)) {
      const obj = node as Record<string, unknown>;
      const value = obj[key];
      if (e.drop) { if (Array.isArray(node)) node.splice(Number(key), 1); else delete obj[key]; }
      else if (e.rename !== undefined) { delete obj[key]; obj[e.rename] = value; }
      else if (e.set !== undefined) obj[key] = e.set;
      else if (e.add !== undefined) obj[key] = e.add;
      else if (e.map) { if (value === e.map[0]) obj[key] = e.map[1]; }
      else if (e.copy !== undefined) obj[key] = structuredClone(valueAt(root, e.copy));
      else if (e.as) obj[key] = CONVERT[e.as](value);
      else if (e.replace && typeof value === 'string') obj[key] = replaced(value, e.replace);
      else if (e.dropKeys !== undefined && value && typeof value === 'object') {
        for (const k of Object.keys(value)) if (new RegExp(e.dropKeys).test(k)) delete (value as Record<string, unknown>)[k];
      }
    }
  }
  return root as T;
}

/** The reason an edit is malformed, or null (the registry test checks every deviation's edits). */
export function editError(e: unknown): string | null {
  if (!e || typeof e !== 'object') return 'an edit is an object';
  const x = e as Record<string, unknown>;
  if (typeof x.at !== 'string' || !x.at) return '"at" is a dotted path';
  const ops = OPS.filter((k) => x[k] !== undefined);
  if (ops.length !== 1) return `exactly one of ${OPS.join(', ')} (got ${ops.join(', ') || 'none'})`;
  const unknown = Object.keys(x).filter((k) => k !== 'at' && !(OPS as readonly string[]).includes(k));
  if (unknown.length) return `unknown field(s) ${unknown.join(', ')}`;
  if (x.as !== undefined && !(String(x.as) in CONVERT)) return `"as" is one of ${Object.keys(CONVERT).join(', ')}`;
  if (x.map !== undefined && !(Array.isArray(x.map) && x.map.length === 2)) return '"map" is [from, to]';
  if (x.copy !== undefined && !(typeof x.copy === 'string' && x.copy)) return '"copy" is a dotted path from the root';
  if (x.replace !== undefined) {
    const r = x.replace;
    if (!(Array.isArray(r) && (r.length === 2 || (r.length === 3 && r[2] === 'g')) && typeof r[0] === 'string' && typeof r[1] === 'string')) return '"replace" is [pattern, replacement] or [pattern, replacement, "g"]';
  }
  for (const p of [x.replace ? (x.replace as string[])[0] : undefined, x.dropKeys]) {
    if (p === undefined) continue;
    if (typeof p !== 'string') return 'a pattern is a string';
    try { new RegExp(p); } catch { return `${JSON.stringify(p)} is not a regular expression`; }
  }
  return null;
}
