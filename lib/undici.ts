// undici's Agent and request for the project's code: from the one file the build bundles the package into (dist/lib/undici-bundle.cjs), else from the package.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as UndiciModule from 'undici';

/**
 * Why one file: undici's entry loads some 150 modules (fetch, WebSocket, caches, mocks), about 0.1 s of CPU in every process that
 * imports it, and every Playwright runner and worker, every `ces` and every stack does. The bundle holds only what Agent and
 * request need (lib/undici-entry.cjs: the package's modules, request made as its entry makes it), compiled once and kept by the
 * compile cache (lib/compile-cache.cjs). Where there is no build (the sources under tsx) the package itself. Types come from the
 * package: a type-only import of 'undici' loads nothing.
 */
const require = createRequire(import.meta.url);
const bundled = path.join(path.dirname(fileURLToPath(import.meta.url)), 'undici-bundle.cjs');
const undici = (fs.existsSync(bundled) ? require(bundled) : require('undici')) as typeof UndiciModule;

export const { Agent, request } = undici;
export type Agent = UndiciModule.Agent;
