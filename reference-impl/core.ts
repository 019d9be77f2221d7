// The services every part of one stack is built on: store, clock, deviations, domain events, settings, what runs on close (no bot services, no keys: those are built on these).
import type { Db } from './store/db.js';
import type { Clock } from '../lib/clock.js';
import type { Deviations } from './deviations.js';
import type { DomainEvents } from './events.js';
import type { Policies } from './policies.js';

export interface ServiceSettings {
  /** Base URL of the connector the seeded bot uses (fake connector by default; `--connector-url`). */
  connectorUrl?: string;
  /** Shared secret the service signs connector calls with (G2). */
  connectorSecret: string;
  /** Subscribe this URL to every event kind at start (`--webhook-url`). */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Accept plain-HTTP callback and connector URLs (local development only). */
  insecure: boolean;
  /** Outbound TLS trust for connector and webhook calls (PEM), in addition to Node's defaults. */
  outboundCa?: string[];
  seed: number;
  /** Bearer token of the simulation API (and of the fakes' control APIs): `sim_token` of the ready file. */
  simToken: string;
}

export interface Core {
  db: Db;
  clock: Clock;
  /** Switched on and off by the simulation API; read by the seams (`deviations.edited`) and through `policy`, never by domain code. */
  deviations: Deviations;
  /**
   * The named values of every area as the service uses them now: the spec's, or as the deviations switched on set them. Read at the
   * moment of use (deviations switch at run time); domain code reads its decisions here, not from the deviations.
   */
  readonly policy: Policies;
  events: DomainEvents;
  settings: ServiceSettings;
  /** Functions run on close (timers, pollers, outbound agents). */
  onClose: Array<() => void | Promise<void>>;
}
