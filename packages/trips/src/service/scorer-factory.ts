import type { Logger } from '@svc/platform';
import { createThreadPoolScorer } from '../scoring/thread-pool-scorer.ts';
import type { TripScorer } from '../scoring/trip-scorer.ts';

/**
 * Starts the scoring threads. When the engine cannot start, the service still runs (reads and uploads
 * work; uploads stay queued) and says so, rather than refusing to serve what is already scored.
 */
export async function startScorer(graphFile: string, threads: number, logger: Logger): Promise<TripScorer | null> {
  try {
    return await createThreadPoolScorer({ graphFile, threads });
  } catch (err) {
    logger.error(
      { err: err instanceof Error ? err.message : String(err) },
      'the scoring engine could not start: uploads are accepted and queued, but not scored',
    );
    return null;
  }
}
