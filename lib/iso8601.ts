// ISO 8601 date-times as connectors write them (G24): offset and fraction optional; Java's zoned form `...Z[Etc/UTC]` recognised apart.

// Extended format: date, `T`, hh:mm[:ss[.fff]], optional `Z` or ±hh[:mm]; Java's ZonedDateTime.toString() adds `[zone id]`.
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?(\[[A-Za-z0-9_/+-]{1,64}\])?$/;

/** `iso`: an ISO 8601 date-time; `java-zoned`: the same with a `[zone]` suffix (valid, worth a WARN); null: not a date-time. */
export function isoDateTimeKind(v: unknown): 'iso' | 'java-zoned' | null {
  if (typeof v !== 'string') return null;
  const m = ISO.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > days || h! > 23 || mi! > 59 || (s !== undefined && !Number.isNaN(s) && s > 60)) return null;
  return m[8] ? 'java-zoned' : 'iso';
}
