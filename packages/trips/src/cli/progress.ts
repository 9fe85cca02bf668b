import type { SingleBar } from 'cli-progress';

/** A count's progress: the part of cli-progress's bar the trip-scoring commands use. */
export interface CountProgress {
  start(total: number, value: number): void;
  update(value: number): void;
  setTotal(total: number): void;
  stop(): void;
}

/** How often a count's progress is written as a plain line where no terminal shows the bar. */
export const PLAIN_PROGRESS_INTERVAL_MS = 30_000;

/**
 * Progress of a long count (`rescoring 1200/5000 trips`) on `stream`: cli-progress's bar on a terminal; elsewhere (a
 * log file, a pipe, a service manager's journal), where that bar writes nothing at all, a plain line every 30 s and
 * none for a shorter run. Before, a rescore of a large store under nohup or cron said nothing until it ended, hours
 * later; a script's short run stays as quiet as it was.
 */
export function countProgress(
  Bar: typeof SingleBar,
  label: string,
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  intervalMs = PLAIN_PROGRESS_INTERVAL_MS,
): CountProgress {
  if (stream.isTTY) return new Bar({ format: `${label} {bar} {value}/{total} trips`, stream });
  let total = 0;
  let value = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    start(t, v) {
      total = t;
      value = v;
      clearInterval(timer);
      timer = setInterval(() => stream.write(`${label.trim()} ${value}/${total} trips\n`), intervalMs);
      // A count that outlives its command (an error path that skips stop()) must not keep the process alive.
      timer.unref();
    },
    update(v) {
      value = v;
    },
    setTotal(t) {
      total = t;
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
