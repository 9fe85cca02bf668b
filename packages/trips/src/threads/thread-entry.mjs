// Worker threads start without the parent's TypeScript loader: register tsx, then load the module the
// parent named in workerData.entry (a file URL of a .ts module).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
