// Named values of the console pages: how the pages behave (flags the pages read) and whether secrets are kept out, which deviations may set (fixtures/deviations/console.json).

export const CONSOLE_POLICY = {
  /** Behaviour of the chat page (sent in /console/api/config; the page follows the spec with all false). */
  pageFlags: { quickReplySendsId: false, rawHtml: false, scheduledKept: false } as Readonly<Record<string, boolean>>,
  /** No secret ever leaves for a page: every known secret is masked and the bot views carry none. */
  secretsKept: true as boolean,
};
