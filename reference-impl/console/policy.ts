// Policy of the console pages: how the pages behave (flags the pages read) and how secrets are kept out; deviations (fixtures/deviations/console.json) override fields.
import type { PolicyModule } from '../policies.js';
import { LIMITS } from '../../lib/limits.js';

const mask = (text: string, secrets: string[]): string => {
  let out = text;
  for (const s of secrets) out = out.split(JSON.stringify(s).slice(1, -1)).join('***');
  return out;
};

const defaults = {
  /** Behaviour of the chat page (sent in /console/api/config; the page follows the spec with all false). */
  pageFlags: { quickReplySendsId: false, rawHtml: false, scheduledKept: false } as Record<string, boolean>,
  /** The size the pages show Image objects at: the spec's 240x120 pixels (CONSOLE-PAY-02). */
  imageSize: { width: LIMITS.imageWidth, height: LIMITS.imageHeight } as Readonly<{ width: number; height: number }>,
  /** How the pages show bundles (spec: Carousel): cards as a carousel, product offers as a slider (CONSOLE-PAY-01). */
  bundleStrips: { 'bundle/card': 'carousel', 'bundle/product-offer': 'slider' } as Readonly<Record<string, string>>,
  /** JSON text as it may leave for a page: every known secret replaced by ***. */
  redact: (text: string, secrets: string[]): string => mask(text, secrets),
  /** Extra fields of a bot in the inspector's view (none: the connector secret never leaves). */
  botExtras: (_secret: string): Record<string, unknown> => ({}),
};

export const CONSOLE_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    redact: { none: (text) => text },
    botExtras: { 'connector-secret': (secret) => ({ connectorSecret: secret }) },
  },
};
