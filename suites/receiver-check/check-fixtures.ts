// Fixtures of the webhook receiver checks: the settings (`ces check` variables or the target's sink) and a deliverer whose calls become report steps.
import { test as base, expect, clauses, checkedPartner, currentTarget } from '../fixtures.js';
import type { TestInfo } from '@playwright/test';
import { reproduction } from '../verdicts.js';
import { ANNOTATION } from '../../lib/verdicts.js';
import { SIGNATURE_HEADER, verify } from '../../lib/signature.js';
import { deliveryCurl, rerunCommand } from '../../check/reproduce.js';
import type { HttpAnswer } from '../../lib/http.js';
import { missingUrl, receiverSettings, type ReceiverCheckSettings } from '../../check/settings.js';
import { deliveryHeaders, type SignatureMode } from '../../check/webhook-samples.js';
import { abortAfter, LIMIT_OF } from '../../check/timing.js';
import { withCopies } from '../fixtures/copies.js';

export { expect, clauses };

export interface Delivery { answer?: HttpAnswer; error?: string; ms: number; headers: Record<string, string>; raw: string }
export type Deliver = (title: string, body: unknown, opts?: { correlationId?: string; signature?: SignatureMode }) => Promise<Delivery>;

/** After a check that failed or warned: the curl of each delivery it sent (signature from $CES_SECRET), and a re-run for timing. */
function reproduceDeliveries(info: TestInfo): void {
  const failed = info.status !== info.expectedStatus && info.status !== 'skipped';
  if (!failed && !info.annotations.some((x) => x.type === ANNOTATION.warn)) return;
  const s = receiverSettings(currentTarget());
  const parts: string[] = [];
  const clause = info.tags.map((t) => t.replace(/^@/, '')).find((c) => c === 'RECV-FAST-01' || c === 'RECV-ANSWER-01');
  if (clause) parts.push(`# re-run just this clause:\n${rerunCommand(clause)}`);
  for (const a of info.attachments) {
    if (a.contentType !== 'application/json' || !a.body) continue;
    let e: any;
    try { e = JSON.parse(a.body.toString('utf8')); } catch { continue; }
    const r = e?.request;
    if (!r?.headers || typeof r.body !== 'string' || r.method !== 'POST') continue;
    const header = r.headers[SIGNATURE_HEADER] as string | undefined;
    const mode = !header ? 'missing' : verify(s.secret, r.body, header).ok ? 'valid' : 'wrong';
    parts.push(`# ${a.name}: answered ${e.response?.status ?? `nothing (${String(e.response?.error ?? '').split('\n')[0]})`} during the check`);
    parts.push(deliveryCurl(r.url, r.headers, r.body, { caFile: currentTarget().ca_file, signature: mode, maxTimeS: 35 }));
  }
  if (!parts.length) parts.push(`# re-run just this clause:\n${rerunCommand(info.tags[0]?.replace(/^@/, '') ?? '')}`);
  reproduction(parts.join('\n'));
}

export const test = withCopies(base.extend<{ receiver: ReceiverCheckSettings; deliver: Deliver; reproduceDeliveriesOf: void }>({
  reproduceDeliveriesOf: [async ({}, use, info) => { await use(); try { reproduceDeliveries(info); } catch { /* a reproduction helps; it never becomes a failure of its own */ } }, { auto: true }],
  receiver: async ({ target }, use) => {
    await use(checkedPartner(missingUrl(target, 'receiver'), () => receiverSettings(target), 'RECV-HTTPS-01'));
  },
  deliver: async ({ receiver, api }, use) => {
    await use(async (title, body, opts = {}) => {
      const raw = JSON.stringify(body);
      const headers = deliveryHeaders(receiver.secret, raw, receiver.unsigned ? { ...opts, signature: 'missing' } : opts);
      const started = performance.now();
      try {
        // The service gives up after the 30 s answer timeout (G3); the checker waits a little longer to measure lateness.
        const answer = await api.request({ method: 'POST', url: receiver.url, headers, body: raw, timeoutMs: abortAfter(LIMIT_OF.webhookAnswer) }, title);
        return { answer, ms: answer.ms, headers, raw };
      } catch (e) {
        return { error: (e as Error).message || String(e), ms: performance.now() - started, headers, raw };
      }
    });
  },
}));

export const is2xx = (d: Delivery): boolean => d.answer !== undefined && d.answer.status >= 200 && d.answer.status <= 299;
export const is4xx = (d: Delivery): boolean => d.answer !== undefined && d.answer.status >= 400 && d.answer.status <= 499;
export const outcome = (d: Delivery): string => (d.answer ? `answered ${d.answer.status} in ${Math.round(d.ms)} ms` : `no answer after ${Math.round(d.ms)} ms (${d.error})`);
