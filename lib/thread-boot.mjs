// Entry of a harness worker thread started from the TypeScript sources (tests under tsx): loads tsx (its hooks are per thread), then the module workerData names.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
