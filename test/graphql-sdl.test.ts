// Drift check of the checked-in GraphQL SDL (fixtures/graphql/schema.graphql) against printSchema of the reference implementation's schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.js';
import { sdl } from '../reference-impl/graphql/print-sdl.js';

const FILE = path.join(ROOT, 'fixtures', 'graphql', 'schema.graphql');
const REGENERATE = 'node --import tsx reference-impl/graphql/print-sdl.ts > fixtures/graphql/schema.graphql';

test('fixtures/graphql/schema.graphql is the printed schema of reference-impl/graphql', () => {
  assert.ok(fs.existsSync(FILE), `fixtures/graphql/schema.graphql is missing: generate it with \`${REGENERATE}\` and commit it`);
  const printed = sdl();
  const checked = fs.readFileSync(FILE, 'utf8');
  if (printed !== checked) {
    const a = printed.split('\n');
    const b = checked.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.fail(`the GraphQL schema changed without regenerating its SDL (first difference at line ${line + 1}: printed ${JSON.stringify(a[line])}, checked in ${JSON.stringify(b[line])}).\nRegenerate with \`${REGENERATE}\` and commit it.`);
  }
});
