// A usage or set-up error: printed as one clear line, exit code 2.
export class UsageError extends Error {}
export const EXIT = { ok: 0, mustFailed: 1, usage: 2 } as const;
