// Policy of the console pages: how the pages behave (flags the pages read) and how secrets are kept out; deviations (fixtures/deviations/console.json) override fields.
import type { PolicyModule } from '../policies.js';

const mask = (text: string, secrets: string[]): string => {
  let out = text;
  for (const s of secrets) out = out.split(JSON.stringify(s).slice(1, -1)).join('***');
  return out;
};

const defaults = {
  /** Behaviour of the chat page (sent in /console/api/config; the page follows the spec with all false). */
  pageFlags: { quickReplySendsId: false, rawHtml: false, scheduledKept: false } as Record<string, boolean>,
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
