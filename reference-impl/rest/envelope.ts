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
  /**
   * `decision`: the REST policy's named status this failure answers with (G10 decides 403, 404, 400; another service may decide
   * otherwise), read where the answer is sent (reference-impl/rest/index.ts); `statusCode` is that decision's default.
   */
  constructor(public statusCode: number, message: string, public status: MetaStatus = 'fail', public decision?: FailStatusDecision) { super(message); }
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
  /** PUT /operator/{id}/live with `connected=1`, where the policy accepts it (rest.policy liveConnectAccepted). */
  liveConnected: 'Operator is now connected.',
} as const;

/** The REST policy's named statuses of failures whose HTTP status is a decision of G10 (reference-impl/rest/policy.ts). */
export type FailStatusDecision = 'forbiddenStatus' | 'unknownIdStatus' | 'periodTooLongStatus' | 'badIdStatus';

export const forbidden = () => new RestFail(403, TEXT.forbidden, 'error', 'forbiddenStatus');
export const unknownId = (resource: string, id: string | number) => new RestFail(404, TEXT.unknownId(resource, id), 'fail', 'unknownIdStatus');
export const periodTooLong = () => new RestFail(400, TEXT.periodTooLong, 'fail', 'periodTooLongStatus');
export const badId = (message: string) => new RestFail(400, message, 'fail', 'badIdStatus');
export const badRequest = (message: string) => new RestFail(400, message);

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's REST date form. */
export function restDate(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
