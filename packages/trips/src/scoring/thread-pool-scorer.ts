import type { Worker } from 'node:worker_threads';
import type { ScoredTrip } from '@svc/scoring';
import { startThread } from '../threads/start-thread.ts';
import type { ScoringInput, TripScorer } from './trip-scorer.ts';

interface Pending {
  resolve: (trip: ScoredTrip) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: number;
  pending: Map<number, Pending>;
}

/** An error rebuilt from a scoring thread, keeping its name so permanent failures stay recognisable. */
class ScoringThreadError extends Error {
  readonly code: unknown;
  constructor(name: string, message: string, code: unknown) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

const THREAD_MODULE = new URL('./scoring-thread.ts', import.meta.url);

/**
 * Scores trips in worker threads, each with its own copy of the road graph, so that map matching and
 * scoring never block the API's event loop. A thread that dies fails its in-flight trips (the queue
 * retries them) and is replaced.
 */
export async function createThreadPoolScorer(options: { graphFile: string; threads: number }): Promise<TripScorer> {
  let nextId = 1;
  let closed = false;
  const slots: Slot[] = [];
  let modelVersion = '';

  const spawn = (): Promise<Slot> =>
    new Promise((resolve, reject) => {
      const worker = startThread(THREAD_MODULE, { graphFile: options.graphFile });
      const slot: Slot = { worker, busy: 0, pending: new Map() };
      let ready = false;
      worker.on(
        'message',
        (msg: {
          ready?: boolean;
          modelVersion?: string;
          id?: number;
          ok?: boolean;
          result?: ScoredTrip;
          error?: { name: string; message: string; code: unknown };
        }) => {
          if (msg.ready) {
            ready = true;
            modelVersion = msg.modelVersion ?? modelVersion;
            resolve(slot);
            return;
          }
          const p = slot.pending.get(msg.id!);
          if (!p) return;
          slot.pending.delete(msg.id!);
          slot.busy--;
          if (msg.ok) p.resolve(msg.result!);
          else p.reject(new ScoringThreadError(msg.error!.name, msg.error!.message, msg.error!.code));
        },
      );
      const fail = (err: Error) => {
        for (const p of slot.pending.values()) p.reject(err);
        slot.pending.clear();
        slot.busy = 0;
        if (!ready) reject(err);
        const i = slots.indexOf(slot);
        if (i >= 0) slots.splice(i, 1);
        if (!closed && ready) {
          spawn().then(
            (fresh) => slots.push(fresh),
            () => {},
          );
        }
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!closed) fail(new Error(`scoring thread exited with code ${code}`));
      });
    });

  const threads = Math.max(1, options.threads);
  for (let i = 0; i < threads; i++) slots.push(await spawn());

  return {
    get modelVersion() {
      return modelVersion;
    },
    score(input: ScoringInput): Promise<ScoredTrip> {
      if (closed) return Promise.reject(new Error('the scorer is closed'));
      const slot = slots.reduce<Slot | undefined>((best, s) => (!best || s.busy < best.busy ? s : best), undefined);
      if (!slot) return Promise.reject(new Error('no scoring thread is running'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.busy++;
        slot.worker.postMessage({ id, input });
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
