// Named values of the console pages: how the pages show payloads, how they behave (flags the pages read) and whether secrets are kept out, which deviations may set (fixtures/deviations/console.json).
import { LIMITS } from '../../lib/limits.js';

export const CONSOLE_POLICY = {
  /** Behaviour of the chat page (sent in /console/api/config; the page follows the spec with all false). */
  pageFlags: { quickReplySendsId: false, rawHtml: false, scheduledKept: false } as Readonly<Record<string, boolean>>,
  /** The size the pages show Image objects at: the spec's 240x120 pixels (CONSOLE-PAY-02). */
  imageSize: { width: LIMITS.imageWidth, height: LIMITS.imageHeight } as Readonly<{ width: number; height: number }>,
  /** How the pages show bundles (spec: Carousel): cards as a carousel, product offers as a slider (CONSOLE-PAY-01). */
  bundleStrips: { 'bundle/card': 'carousel', 'bundle/product-offer': 'slider' } as Readonly<Record<string, string>>,
  /** No secret ever leaves for a page: every known secret is masked and the bot views carry none. */
  secretsKept: true as boolean,
};
