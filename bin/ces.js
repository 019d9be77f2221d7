#!/usr/bin/env node
// Entry point of the `ces` CLI: loads TypeScript through tsx, then runs cli/ces.ts.
import { register } from 'tsx/esm/api';
register();
await import('../cli/ces.ts');
