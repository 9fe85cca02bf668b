import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '@svc/platform';
import { serveThreadRequests } from '../threads/thread-pool.ts';
import type { TripsSchema } from './schema.ts';
import { WINDOW_READS, type WindowReadName } from './window-reads.ts';

/** A reader thread (window-reads.ts): answers the window reads on its own read-only connection to the store. */
const database = await openDatabase<TripsSchema>({ sqliteFile: workerData.file as string, sqliteReadOnly: true });

serveThreadRequests(parentPort!, async (message) => {
  const read = WINDOW_READS[message.op as WindowReadName] as
    | ((db: typeof database.db, ...args: unknown[]) => Promise<unknown>)
    | undefined;
  if (!read) throw new Error(`unknown reader thread operation ${String(message.op)}`);
  return { result: await read(database.db, ...(message.args as unknown[])) };
});
