#!/usr/bin/env node
// Entry point of the `ces` CLI: runs the compiled JavaScript of dist/; in a checkout, first recompiles what changed in the TypeScript sources.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A checkout has the sources and the build script (the package ships neither): a .ts edited since the last build is recompiled
// here (a few ms when nothing changed), so `node bin/ces.js` never runs stale code.
if (fs.existsSync(path.join(root, 'scripts', 'build.mjs'))) await (await import('../scripts/build.mjs')).ensureBuilt();
// Stack traces point at the TypeScript (dist/ has source maps), in this process and in those it starts (Playwright, k6 helpers).
process.setSourceMapsEnabled(true);
if (!/--enable-source-maps/.test(process.env.NODE_OPTIONS ?? '')) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --enable-source-maps`.trim();
// V8's compiled code of the CommonJS packages kept on disk (dist/lib/compile-cache.cjs says why), here and in every Node process
// of the run (Playwright's runner and workers load 7 MB of Playwright each).
const compileCache = path.join(root, 'dist', 'lib', 'compile-cache.cjs');
createRequire(import.meta.url)(compileCache);
if (!(process.env.NODE_OPTIONS ?? '').includes(compileCache)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(compileCache)}`.trim();
// Reports go to ./reports of the folder `ces` was started in (or CES_REPORTS_DIR): resolved once, for every process of the run.
process.env.CES_REPORTS_DIR = path.resolve(process.env.CES_REPORTS_DIR || 'reports');
await import('../dist/cli/ces.js');
