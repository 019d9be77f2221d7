// The REST response envelope (meta.status, meta.message, data, pagination) and the REST error catalogue with stable texts.
export type MetaStatus = 'success' | 'fail' | 'error';

export interface Pagination { page: number; pages: number; limit: number; count: number }

export function success(data: unknown, opts: { message?: string; pagination?: Pagination } = {}) {
  return {
    meta: opts.message ? { status: 'success' as const, message: opts.message } : { status: 'success' as const },
    data,
    ...(opts.pagination ? { pagination: opts.pagination } : {}),
  };
}

/** A REST failure answered as the envelope; `status` error is reserved for authentication (spec), fail for the rest (G10). */
export class RestFail extends Error {
  constructor(public statusCode: number, message: string, public status: MetaStatus = 'fail') { super(message); }
  body() { return { meta: { status: this.status, message: this.message } }; }
}

/** The spec's texts, one place. */
export const TEXT = {
  forbidden: 'Forbidden',
  unknownId: (resource: string, id: string | number) => `Unknown '${resource}' with 'id' ${id}.`,
  periodTooLong: "The period between 'from' and 'to' must not exceed 3 months.",
  liveChannel: (available: boolean, channel: string) => `Operator is now ${available ? 'available' : 'unavailable'} for ${channel} channel.`,
  /** PUT /operator/{id}/live with `connected=0` (the spec gives no text: project decision). */
  liveDisconnected: 'Operator is now disconnected.',
} as const;

export const forbidden = () => new RestFail(403, TEXT.forbidden, 'error');
export const unknownId = (resource: string, id: string | number) => new RestFail(404, TEXT.unknownId(resource, id));
export const badRequest = (message: string) => new RestFail(400, message);

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's REST date form. */
export function restDate(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
