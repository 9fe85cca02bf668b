/**
 * WAL checkpoints off the request path (SQLite only). A commit only appends to the write-ahead log;
 * copying the logged pages back into the database file (a checkpoint, with an fsync of the log and of
 * the file under `synchronous = NORMAL`) is by default done by whichever commit takes the log past 1,000
 * pages, inside the request that made it: every ~45th post create paid 2-5 ms for it, ~80 µs a create on
 * average. With several workers the cluster primary, which serves no requests, checkpoints instead on a
 * timer (a PASSIVE checkpoint: it never waits for, nor blocks, the workers' reads and writes), and the
 * workers only do it themselves as a fallback when the log grows far beyond that. Pages written many
 * times between two checkpoints are copied once, and a quiet site's log is synced within one interval
 * instead of after the next 1,000 pages.
 */
import { type Kysely, sql } from 'kysely';
import { type PeriodicTask, startPeriodicTask } from './periodic-task.ts';

/** How often the primary checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 100;

/**
 * A worker's own automatic checkpoint threshold, in pages (SQLite's default is 1,000): a fallback should
 * the primary fall behind (e.g. a long read keeps the log from being copied).
 */
export const WORKER_AUTOCHECKPOINT_PAGES = 20_000;

/** Makes this connection leave checkpoints to the primary, up to the fallback threshold. */
export async function leaveCheckpointsToPrimary<DB>(db: Kysely<DB>): Promise<void> {
  await sql`pragma wal_autocheckpoint = ${sql.lit(WORKER_AUTOCHECKPOINT_PAGES)}`.execute(db);
}

/**
 * Above this many pages in the log, a checkpoint also makes the next commit write the log from its
 * start again. A PASSIVE checkpoint leaves that to a writer that begins when every page has been copied,
 * which under a steady stream of commits from two workers hardly ever happens: the log grew to the
 * workers' fallback threshold (80 MB). So after its PASSIVE pass the primary asks for a RESTART
 * checkpoint, which holds off the workers' writes (they retry, see write-transaction.ts) only while it
 * copies the pages committed since the pass and the last readers of the log finish.
 */
export const RESTART_AFTER_PAGES = 4096;

type CheckpointRow = { busy: number; log: number; checkpointed: number };

/**
 * One checkpoint: PASSIVE (copies what the log holds that no reader still needs), then RESTART when the
 * log has grown past {@link RESTART_AFTER_PAGES}. Returns the log's size in pages before it and what was
 * copied.
 */
export async function checkpoint<DB>(db: Kysely<DB>): Promise<{ logPages: number; copiedPages: number }> {
  const passive = (await sql<CheckpointRow>`pragma wal_checkpoint(PASSIVE)`.execute(db)).rows[0];
  const logPages = Number(passive?.log ?? 0);
  let copiedPages = Number(passive?.checkpointed ?? 0);
  if (logPages > RESTART_AFTER_PAGES) {
    const restart = (await sql<CheckpointRow>`pragma wal_checkpoint(RESTART)`.execute(db)).rows[0];
    copiedPages = Math.max(copiedPages, Number(restart?.checkpointed ?? 0));
  }
  return { logPages, copiedPages };
}

/** Checkpoints every `intervalMs` until stopped; errors (a locked file) are reported and retried. */
export function startCheckpoints<DB>(
  db: Kysely<DB>,
  options: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): PeriodicTask {
  return startPeriodicTask(() => checkpoint(db), {
    intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
    onError: options.onError,
  });
}
