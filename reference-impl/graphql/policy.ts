// Policy of the GraphQL endpoint: the spec's limits and rules by default; deviations (fixtures/deviations/graphql.json) override fields.
import { GraphQLError, type ValidationRule } from 'graphql';
import type { Db } from '../store/db.js';
import { LIMITS } from '../../lib/limits.js';
import type { PolicyModule } from '../policies.js';
import type { SchemaVariant } from './schema.js';
import { costLimitRule, depthLimitRule, noIntrospectionRule, noMutationRule } from './rules.js';

type Row = Record<string, any>;

const defaults = {
  /** The schema's shape (the spec's by default). */
  schemaVariant: {} as SchemaVariant,
  /** Validation rules run after graphql-js' own: depth and cost limits (GQL-LIMIT-01/02). */
  validationRules: (specified: readonly ValidationRule[]): ValidationRule[] => [...specified, depthLimitRule(), costLimitRule()],
  /** `?platform=` is accepted (G15). */
  platformParamAccepted: true as boolean,
  /** Calls without a valid token are refused (never run as somebody). */
  anonymousRunsAsFirstAccount: false as boolean,
  tokenExpiryChecked: true as boolean,
  unauthenticatedStatus: 401,
  /** A content type forced on every answer (none: the negotiated one, G15). */
  forcedContentType: '',
  /** Offset of the page after a cursor, counted from the cursor's item. */
  cursorStep: 1,
  availabilityPerQuery: LIMITS.graphqlAvailabilityPerQuery,
  availability: <T>(computed: T): T | null => computed,
  survey: (row: Row | undefined): Row | null => row ?? null,
  clientRow: (db: Db, clientId: number): Row | undefined => db.prepare('SELECT * FROM clients WHERE id = ?').get(clientId) as Row | undefined,
  projectRow: (db: Db, id: number, clientId: number): Row | undefined => db.prepare('SELECT * FROM websites WHERE id = ? AND client_id = ?').get(id, clientId) as Row | undefined,
  tagId: (id: number): number => id,
  closedInterval: (from: number, to: number): [number | null, number | null] => [from, to],
  /** The error as answered (its code in extensions). */
  answeredError: (e: GraphQLError): GraphQLError => e,
};

export const GRAPHQL_POLICY: PolicyModule<typeof defaults> = {
  defaults,
  variants: {
    validationRules: {
      'depth-unlimited': (specified) => [...specified, costLimitRule()],
      'cost-unlimited': (specified) => [...specified, depthLimitRule()],
      'introspection-refused': (specified) => [...specified, depthLimitRule(), costLimitRule(), noIntrospectionRule],
      'mutations-refused': (specified) => [...specified, depthLimitRule(), costLimitRule(), noMutationRule],
    },
    availability: { null: () => null },
    survey: { null: () => null },
    clientRow: { 'last-account': (db) => db.prepare('SELECT * FROM clients ORDER BY id DESC LIMIT 1').get() as Row | undefined },
    projectRow: {
      'any-client': (db, id) => db.prepare('SELECT * FROM websites WHERE id = ?').get(id) as Row | undefined,
      renamed: (db, id, clientId) => {
        const row = db.prepare('SELECT * FROM websites WHERE id = ? AND client_id = ?').get(id, clientId) as Row | undefined;
        return row && { ...row, label: String(row.label).toUpperCase() + ' ' };
      },
    },
    tagId: { next: (id) => id + 1 },
    closedInterval: { ignored: () => [null, null] },
    answeredError: { 'no-code': (e) => new GraphQLError(e.message, { nodes: e.nodes, path: e.path, originalError: e.originalError, extensions: {} }) },
  },
};
