// One call of the service to a bot connector as the checker records it (check/connector-client.ts makes them, check/evidence.ts judges them): its own module, so that neither imports the other for it.

/** Spec endpoint numbers of the bot connector table; 0 is no endpoint of the contract (the not-found probe, check/evidence.ts). */
export type Endpoint = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

export type SignatureMode = 'valid' | 'wrong' | 'missing';

export interface Exchange {
  endpoint: Endpoint;
  method: string;
  path: string;
  url: string;
  /** The exact bytes signed: raw query string (GET) or raw body (POST/PUT). */
  signed: string;
  requestBody?: unknown;
  status?: number;
  /** Parsed JSON answer, undefined when not JSON. */
  json?: unknown;
  text?: string;
  contentType?: string;
  /** Measured from sending to the whole answer read. */
  ms: number;
  /** Network error or timeout. */
  error?: string;
  /** Ms since the start of the conversation it belongs to (sequence diagrams). */
  at?: number;
  /** How the call was signed (default valid). */
  signature?: SignatureMode;
}
