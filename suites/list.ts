// The suites, one folder of suites/ each: read by the Playwright configuration and by `ces test --suite` (without loading Playwright).
export const SUITES = ['rest', 'auth', 'graphql', 'bot-runtime', 'webhooks', 'connector-check', 'receiver-check', 'browser'];
