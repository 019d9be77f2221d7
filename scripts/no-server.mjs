// Preloaded into each test process of the quick tier by scripts/unit-tests.mjs --quick (NODE_OPTIONS --import): a file that starts a server or a thread fails, so the quick tier stays the tests that start none.
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import workers, { isMainThread } from 'node:worker_threads';

if (isMainThread && process.env.CES_NO_SERVER === '1') {
  // The processes the test starts (a `node -e` of its own) are not the test's servers: only this process is held to it.
  delete process.env.CES_NO_SERVER;
  const refuse = (what) => { throw new Error(`${what} in the quick tier (scripts/unit-tests.mjs QUICK): a file that starts one belongs to \`npm test\` only`); };
  net.Server.prototype.listen = function listen() { refuse('a server listening'); };
  workers.Worker = class { constructor() { refuse('a worker thread'); } };
  // `import { Worker } from 'node:worker_threads'` in the test's modules sees the replacement too.
  syncBuiltinESMExports();
}
