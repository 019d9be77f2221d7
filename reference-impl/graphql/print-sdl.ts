// Prints the service's GraphQL SDL; regenerate the checked-in copy with `node --import tsx reference-impl/graphql/print-sdl.ts > fixtures/graphql/schema.graphql`.
import { printSchema } from 'graphql';
import { buildCesSchema } from './schema.js';

/** The SDL as checked in: printSchema of the schema without deviations, with a final newline. */
export function sdl(): string { return printSchema(buildCesSchema()) + '\n'; }

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(sdl());
