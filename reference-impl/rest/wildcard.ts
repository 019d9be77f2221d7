// `*` wildcards of REST filter values, matched in linear time without regular expressions (no input can make matching backtrack).
//
// A pattern is literal parts separated by runs of `*`. The first part must start the text, the last must end it, and each middle part
// is taken at its leftmost place after the previous one: for `*`-only patterns the leftmost choice is always right, so there is
// nothing to undo. Matching is case-insensitive, as the regular expression it replaces was.

export type Matcher = (s: unknown) => boolean;

/** A case-insensitive matcher of `pattern`. */
export function wildcard(pattern: string): Matcher {
  const lower = pattern.toLowerCase();
  const parts = lower.split('*');
  const text = (s: unknown) => (s === null || s === undefined ? null : String(s).toLowerCase());
  if (parts.length === 1) return (s) => text(s) === lower;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p !== '');
  return (s) => {
    const t = text(s);
    if (t === null || t.length < first.length + last.length || !t.startsWith(first) || !t.endsWith(last)) return false;
    const end = t.length - last.length;
    let at = first.length;
    for (const part of middle) {
      const found = t.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}
