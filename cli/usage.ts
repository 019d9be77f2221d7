// A usage or set-up error: printed as one clear line, exit code 2.
export class UsageError extends Error {}
export const EXIT = { ok: 0, mustFailed: 1, usage: 2 } as const;

/**
 * The items of a comma-list option (`--only a,b`), given once or more (`--only a --only b,c`): yargs gives a repeated string
 * option as an array, on which a plain split() threw a TypeError. Each item once, in the order given.
 */
export function commaList(value: unknown): string[] {
  const given = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return [...new Set(given.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean))];
}
