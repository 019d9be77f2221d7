// Entry of a harness worker thread: loads TypeScript through tsx (hooks are per thread), then the module workerData names.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
