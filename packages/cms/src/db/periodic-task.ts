/** A background task of the cluster primary (or a single process) run on a timer. */
export interface PeriodicTask {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs`, never two at once (a run still going when the timer fires makes it skip
 * that turn); a failed run is reported to `onError` and the next turn tries again. The timer does not keep
 * the process alive.
 */
export function startPeriodicTask(
  run: () => Promise<unknown>,
  options: { intervalMs: number; onError?: ((err: unknown) => void) | undefined },
): PeriodicTask {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = run()
      .catch((err: unknown) => options.onError?.(err))
      .finally(() => {
        running = null;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
