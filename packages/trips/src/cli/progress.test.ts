import { PassThrough } from 'node:stream';
import { SingleBar } from 'cli-progress';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countProgress } from './progress.ts';

/** A stream that is not a terminal (a log file, a pipe), keeping what was written. */
function notATerminal() {
  const stream = Object.assign(new PassThrough(), { isTTY: false as boolean, written: [] as string[] });
  stream.on('data', (chunk: Buffer) => stream.written.push(chunk.toString()));
  return stream;
}

describe('countProgress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes a plain line every 30 s where no terminal shows the bar, and nothing for a shorter run', async () => {
    vi.useFakeTimers();
    const stream = notATerminal();
    const quiet = countProgress(SingleBar, 'queued   ', stream);
    quiet.start(10, 0);
    quiet.update(10);
    await vi.advanceTimersByTimeAsync(29_000);
    quiet.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stream.written).toEqual([]);

    const long = countProgress(SingleBar, 'rescoring', stream);
    long.start(5000, 0);
    await vi.advanceTimersByTimeAsync(30_000);
    long.update(1200);
    await vi.advanceTimersByTimeAsync(30_000);
    // Trips that arrived during the run: the total grows instead of being passed.
    long.setTotal(5100);
    long.update(5050);
    await vi.advanceTimersByTimeAsync(30_000);
    long.update(5100);
    long.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stream.written.join('')).toBe(
      'rescoring 0/5000 trips\nrescoring 1200/5000 trips\nrescoring 5050/5100 trips\n',
    );
  });

  it("draws cli-progress's bar on a terminal", () => {
    const stream = Object.assign(notATerminal(), { isTTY: true });
    expect(countProgress(SingleBar, 'rescoring', stream)).toBeInstanceOf(SingleBar);
  });
});
