// Fetches a linked image as bytes and measures it (CONN-IMAGE-01: reachable, a picture browsers display, 240x120).
import type { Dispatcher } from 'undici';
import { request } from '../lib/undici.js';
import { imageSize } from 'image-size';
import { LIMITS } from '../lib/limits.js';

export interface ImageProbe { url: string; status?: number; contentType?: string; bytes?: number; width?: number; height?: number; type?: string; ms: number; error?: string }

/** Picture formats every current browser displays. */
const BROWSER_TYPES = new Set(['png', 'jpg', 'gif', 'webp', 'svg', 'bmp', 'ico', 'avif']);

export async function probeImage(url: string, dispatcher: Dispatcher, timeoutMs: number): Promise<ImageProbe> {
  const started = performance.now();
  const out: ImageProbe = { url, ms: 0 };
  try {
    const res = await request(url, { dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const buf = Buffer.from(await res.body.arrayBuffer());
    out.status = res.statusCode;
    out.contentType = String(res.headers['content-type'] ?? '');
    out.bytes = buf.length;
    try { const d = imageSize(new Uint8Array(buf)); out.width = d.width; out.height = d.height; out.type = d.type; } catch (e) { out.error = `not a picture: ${(e as Error).message}`; }
  } catch (e) {
    out.error = (e as Error).message || String(e);
  }
  out.ms = performance.now() - started;
  return out;
}

/** Why a probed image does not meet the clause, or null. */
export function imageProblem(p: ImageProbe): string | null {
  if (p.status === undefined) return `${p.url}: not reachable (${p.error})`;
  if (p.status < 200 || p.status > 299) return `${p.url}: answered ${p.status}`;
  if (p.width === undefined) return `${p.url}: ${p.error ?? 'not a picture'}`;
  if (!BROWSER_TYPES.has(String(p.type))) return `${p.url}: ${p.type} pictures are not displayable in browsers`;
  if (p.width !== LIMITS.imageWidth || p.height !== LIMITS.imageHeight) return `${p.url}: ${p.width}x${p.height}, expected ${LIMITS.imageWidth}x${LIMITS.imageHeight}`;
  return null;
}
