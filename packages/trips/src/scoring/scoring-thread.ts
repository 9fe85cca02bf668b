import { parentPort, workerData } from 'node:worker_threads';
import { loadGraph } from '@svc/roads';
import { serveThreadRequests } from '../threads/thread-pool.ts';
import { loadScoringEngine, scoreStoredTrip } from './engine.ts';
import type { ScoringInput } from './trip-scorer.ts';

/** A scoring thread (thread-pool-scorer.ts): its ready message carries the engine's model version. */
const engine = loadScoringEngine();
const graph = loadGraph((workerData as { graphFile: string }).graphFile);
serveThreadRequests(
  parentPort!,
  (message) => ({ result: scoreStoredTrip(engine, graph, message.input as ScoringInput) }),
  engine.modelVersion,
);
