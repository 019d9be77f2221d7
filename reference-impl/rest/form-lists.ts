// G26: lists as real clients send them — PHP's http_build_query writes `name[0]=a&name[1]=b`, others `name[]=a`, OpenAPI's default form
// style and Python's requests `name=a&name=b` — mean the same as the spec's forms.

/** `name[]` or `name[<index>]` at the end of a key: the list suffix, and the key without it. */
const LIST_SUFFIX = /^(.*?)\[(\d*)\]$/;

/**
 * Folds indexed and bracket list keys into one list per name, in index order: `{ 'a[1]': 'y', 'a[0]': 'x' }` → `{ 'a[]': ['x', 'y'] }`.
 * `keep(name)` says which names may be lists (others are left alone, so `filters[x]` stays a key). Values already arrays
 * (a repeated key) are kept in their order.
 */
export function foldLists(entries: Record<string, unknown>, keep: (name: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const lists = new Map<string, Array<{ at: number; seq: number; v: unknown }>>();
  let seq = 0;
  for (const [k, v] of Object.entries(entries)) {
    const m = LIST_SUFFIX.exec(k);
    if (!m || !keep(m[1]!)) { out[k] = v; continue; }
    const items = lists.get(m[1]!) ?? [];
    // `name[]` items keep their arrival order after indexed ones with the same position.
    const at = m[2] === '' ? Number.MAX_SAFE_INTEGER : Number(m[2]);
    for (const x of Array.isArray(v) ? v : [v]) items.push({ at, seq: seq++, v: x });
    lists.set(m[1]!, items);
  }
  for (const [name, items] of lists) out[`${name}[]`] = items.sort((a, b) => a.at - b.at || a.seq - b.seq).map((i) => i.v);
  return out;
}

/**
 * The query with list filters folded into the spec's comma lists: `filters[x][0]=a&filters[x][1]=b`, `filters[x][]=a&filters[x][]=b`
 * and, for the list filters named in `lists`, the repeated `filters[x]=a&filters[x]=b` → `filters[x]=a,b`. A filter that is not a
 * list given twice stays an array (refused as given twice).
 */
export function filterLists(q: Record<string, unknown>, lists: readonly string[] = []): Record<string, unknown> {
  const folded = foldLists(q, (name) => /^filters\[[a-z_]+\]$/.test(name));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(folded)) {
    const m = /^filters\[([a-z_]+)\](\[\])?$/.exec(k);
    const key = m ? `filters[${m[1]}]` : k;
    const value = m && Array.isArray(v) && (m[2] || lists.includes(m[1]!)) ? v.map(String).join(',') : v;
    // One name in two forms (`filters[x]=a&filters[x][]=b`) is a filter given twice: kept as two values, so it is refused.
    out[key] = key in out ? [out[key], value].flat() : value;
  }
  return out;
}
