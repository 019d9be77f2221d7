// Named values of the platform API (G17): the URL schemes and the language form it accepts, the status of a subscription created, which deviations may set (fixtures/deviations/bots.json, webhooks.json).

export const PLATFORM_POLICY = {
  /** Schemes of connector base URLs and webhook callback URLs (spec: HTTPS only; `--insecure` adds http: for local development). */
  connectorSchemes: ['https:'] as readonly string[],
  callbackSchemes: ['https:'] as readonly string[],
  /** A bot operator has exactly one language, a two-letter code (a pattern without repetition). */
  botLanguagePattern: '^[a-z]{2}$',
  /** The status of a subscription created (POST /webhooks: 201, WH-SUB-01). */
  subscriptionCreatedStatus: 201,
};
