// Policy of the platform API: which URLs and languages it accepts; deviations (fixtures/deviations/bots.json, webhooks.json) override fields.
import type { PolicyModule } from '../policies.js';

const defaults = {
  /** Plain-http connector base URLs are accepted only when the service runs with --insecure. */
  plainHttpConnectors: (insecure: boolean): boolean => insecure,
  /** Plain-http callback URLs are accepted only when the service runs with --insecure. */
  plainHttpCallbacks: (insecure: boolean): boolean => insecure,
  /** A bot operator has exactly one language, a two-letter code. */
  botLanguage: (language: string): boolean => /^[a-z]{2}$/.test(language),
};

export const PLATFORM_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    plainHttpConnectors: { always: () => true },
    plainHttpCallbacks: { always: () => true },
    botLanguage: { any: () => true },
  },
};
