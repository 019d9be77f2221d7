// Fixtures of the webhook receiver checks: the settings (`ces check` variables or the target's sink) and a deliverer whose calls become report steps.
import { test as base, expect, clauses, checkedPartner } from '../fixtures.js';
import type { HttpAnswer } from '../../lib/http.js';
import { missingUrl, receiverSettings, type ReceiverCheckSettings } from '../../check/settings.js';
import { deliveryHeaders, type SignatureMode } from '../../check/webhook-samples.js';
import { abortAfter, LIMIT_OF } from '../../check/timing.js';

export { expect, clauses };

export interface Delivery { answer?: HttpAnswer; error?: string; ms: number; headers: Record<string, string>; raw: string }
export type Deliver = (title: string, body: unknown, opts?: { correlationId?: string; signature?: SignatureMode }) => Promise<Delivery>;

export const test = base.extend<{ receiver: ReceiverCheckSettings; deliver: Deliver }>({
  receiver: async ({ target }, use) => {
    await use(checkedPartner(missingUrl(target, 'receiver'), () => receiverSettings(target), 'RECV-HTTPS-01'));
  },
  deliver: async ({ receiver, api }, use) => {
    await use(async (title, body, opts = {}) => {
      const raw = JSON.stringify(body);
      const headers = deliveryHeaders(receiver.secret, raw, opts);
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
});

export const is2xx = (d: Delivery): boolean => d.answer !== undefined && d.answer.status >= 200 && d.answer.status <= 299;
export const is4xx = (d: Delivery): boolean => d.answer !== undefined && d.answer.status >= 400 && d.answer.status <= 499;
export const outcome = (d: Delivery): string => (d.answer ? `answered ${d.answer.status} in ${Math.round(d.ms)} ms` : `no answer after ${Math.round(d.ms)} ms (${d.error})`);
