// G1/G2: `X-Service-Signature: sha256=<hex>` = HMAC-SHA256 keyed with a secret, verified in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
const PATTERN = /^sha256=([0-9a-f]{64})$/;

/** Signs raw bytes (a POST/PUT body, or a GET's raw query string without `?`). */
export function sign(secret: string, raw: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', secret).update(raw).digest('hex');
}

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** Verifies a header value against raw bytes; the compare is constant-time. */
export function verify(secret: string, raw: string | Buffer, header: string | undefined | null): SignatureVerdict {
  if (!header) return { ok: false, reason: 'missing X-Service-Signature header' };
  const m = PATTERN.exec(header);
  if (!m) return { ok: false, reason: `malformed signature "${header.slice(0, 80)}": expected sha256=<64 lowercase hex>` };
  const expected = Buffer.from(sign(secret, raw).slice(7), 'hex');
  const given = Buffer.from(m[1]!, 'hex');
  return timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'signature does not match the HMAC-SHA256 of the raw bytes' };
}
