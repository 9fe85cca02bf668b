import { Worker } from 'node:worker_threads';

const ENTRY = new URL('./thread-entry.mjs', import.meta.url);

/** Starts a worker thread running the TypeScript module at `module` (a file URL), with `data` as workerData. */
export function startThread(module: URL, data: Record<string, unknown>): Worker {
  return new Worker(ENTRY, { workerData: { ...data, entry: module.href } });
}
