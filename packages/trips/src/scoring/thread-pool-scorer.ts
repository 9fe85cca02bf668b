import type { ScoredTrip } from '@svc/scoring';
import { startThreadPool } from '../threads/thread-pool.ts';
import type { ScoringInput, TripScorer } from './trip-scorer.ts';

const THREAD_MODULE = new URL('./scoring-thread.ts', import.meta.url);

/**
 * Scores trips in worker threads, each with its own copy of the road graph, so that map matching and
 * scoring never block the API's event loop. A thread that dies fails its in-flight trips (the queue
 * retries them) and is replaced. A failure keeps its error's name, so permanent failures stay recognisable.
 */
export async function createThreadPoolScorer(options: { graphFile: string; threads: number }): Promise<TripScorer> {
  const pool = await startThreadPool({
    module: THREAD_MODULE,
    threads: options.threads,
    data: { graphFile: options.graphFile },
    name: 'scoring',
  });
  return {
    get modelVersion() {
      return String(pool.info ?? '');
    },
    score: (input: ScoringInput) => pool.run<ScoredTrip>({ input }),
    close: () => pool.close(),
  };
}
