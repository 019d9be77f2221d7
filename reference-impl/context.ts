// The services of one stack, reached through `app.ces`: the core (store, clock, deviations, events, settings), the bot services and the API keys. Nothing stateful lives at module level.
import type { Core } from './core.js';
import type { BotServices } from './bots/index.js';
import type { ApiKeys } from './auth/api-key.js';

export type { ServiceSettings } from './core.js';

export interface ServiceContext extends Core {
  /** Connector calls and their exchange log, availability poller, conversation runtime. */
  bots: BotServices;
  /** API key digests → client (REST, platform and sim authentication). */
  apiKeys: ApiKeys;
}

declare module 'fastify' {
  interface FastifyInstance { ces: ServiceContext }
}
