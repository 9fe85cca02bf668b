import type { MessagePort, Worker } from 'node:worker_threads';
import { startThread } from './start-thread.ts';

/** What a pooled thread answers: its ready message once, then one reply per request, by id. */
export type ThreadReply<T> =
  | { ready: true; info?: unknown }
  | { id: number; ok: true; result: T }
  | { id: number; ok: false; error: { name: string; message: string; code?: unknown } };

/** A failure inside a thread, rebuilt in the caller's thread with its name, message and code. */
export class ThreadTaskError extends Error {
  readonly code: unknown;
  constructor(name: string, message: string, code: unknown) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

interface Pending {
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: number;
  pending: Map<number, Pending>;
}

/** A fixed number of worker threads running one module, each request to the least busy; a dead one is replaced. */
export interface ThreadPool {
  /** Sends `message` (with `id` added) to a thread and resolves with its result. */
  run<T>(message: Record<string, unknown>, transfer?: readonly ArrayBuffer[]): Promise<T>;
  /** The `info` of the last ready message (e.g. the scoring model's version). */
  readonly info: unknown;
  close(): Promise<void>;
}

/**
 * Starts `threads` threads of `module` (a .ts module answering with ThreadReply messages) and waits until each
 * said it is ready. A thread that dies rejects its requests in flight with its exit reason (callers decide
 * whether to retry) and is replaced; requests go to the thread with the fewest in flight.
 */
export async function startThreadPool(options: {
  module: URL;
  threads: number;
  data?: Record<string, unknown>;
  name: string;
}): Promise<ThreadPool> {
  let nextId = 1;
  let closed = false;
  let info: unknown;
  const slots: Slot[] = [];

  const spawn = (): Promise<Slot> =>
    new Promise((resolve, reject) => {
      const worker = startThread(options.module, options.data ?? {});
      const slot: Slot = { worker, busy: 0, pending: new Map() };
      let ready = false;
      worker.on('message', (msg: ThreadReply<never>) => {
        if ('ready' in msg) {
          ready = true;
          info = msg.info ?? info;
          resolve(slot);
          return;
        }
        const p = slot.pending.get(msg.id);
        if (!p) return;
        slot.pending.delete(msg.id);
        slot.busy--;
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new ThreadTaskError(msg.error.name, msg.error.message, msg.error.code));
      });
      const fail = (err: Error) => {
        for (const p of slot.pending.values()) p.reject(err);
        slot.pending.clear();
        slot.busy = 0;
        if (!ready) reject(err);
        const i = slots.indexOf(slot);
        if (i >= 0) slots.splice(i, 1);
        if (!closed && ready) {
          spawn().then(
            // A replacement that became ready after close() would otherwise run on, unreferenced.
            (fresh) => (closed ? void fresh.worker.terminate() : slots.push(fresh)),
            () => {},
          );
        }
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!closed) fail(new Error(`${options.name} thread exited with code ${code}`));
      });
    });

  for (let i = 0; i < Math.max(1, options.threads); i++) slots.push(await spawn());

  return {
    get info() {
      return info;
    },
    run<T>(message: Record<string, unknown>, transfer: readonly ArrayBuffer[] = []): Promise<T> {
      if (closed) return Promise.reject(new Error(`the ${options.name} threads are stopped`));
      const slot = slots.reduce<Slot | undefined>((best, s) => (!best || s.busy < best.busy ? s : best), undefined);
      if (!slot) return Promise.reject(new Error(`no ${options.name} thread is running`));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        // Posted first: a message that cannot be cloned throws here and leaves nothing pending on the thread.
        slot.worker.postMessage({ ...message, id }, transfer);
        slot.pending.set(id, { resolve: resolve as (value: never) => void, reject });
        slot.busy++;
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

/** What a thread's handler returns for one request: the result, and buffers to move rather than copy. */
type ThreadAnswer = { result: unknown; transfer?: ArrayBuffer[] };

/**
 * Answers a pool's requests in a thread: `handle` gets each message and returns the result (or throws; the
 * error's name, message and code cross back). A handler may be async: requests then overlap in the thread, as
 * calls on its event loop do. Call once the thread is ready to work.
 */
export function serveThreadRequests(
  port: MessagePort,
  handle: (message: Record<string, unknown> & { id: number }) => ThreadAnswer | Promise<ThreadAnswer>,
  info?: unknown,
): void {
  const fail = (id: number, err: unknown) => {
    const e = err as Error & { code?: unknown };
    port.postMessage({
      id,
      ok: false,
      error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code },
    });
  };
  const answer = (id: number, { result, transfer }: ThreadAnswer) =>
    port.postMessage({ id, ok: true, result }, transfer ?? []);
  port.on('message', (message: Record<string, unknown> & { id: number }) => {
    try {
      const answered = handle(message);
      if (answered instanceof Promise) {
        answered.then(
          (a) => {
            try {
              answer(message.id, a);
            } catch (err) {
              fail(message.id, err);
            }
          },
          (err) => fail(message.id, err),
        );
      } else {
        answer(message.id, answered);
      }
    } catch (err) {
      fail(message.id, err);
    }
  });
  port.postMessage({ ready: true, info });
}
