import { parentPort, workerData } from 'node:worker_threads';
import { loadGraph } from '@svc/roads';
import { loadScoringEngine, scoreStoredTrip } from './engine.ts';
import type { ScoringInput } from './trip-scorer.ts';

/** Messages between the pool and a scoring thread. */
export interface ThreadRequest {
  id: number;
  input: ScoringInput;
}

const engine = loadScoringEngine();
const graph = loadGraph((workerData as { graphFile: string }).graphFile);
parentPort!.postMessage({ ready: true, modelVersion: engine.modelVersion });

parentPort!.on('message', ({ id, input }: ThreadRequest) => {
  try {
    const result = scoreStoredTrip(engine, graph, input);
    parentPort!.postMessage({ id, ok: true, result });
  } catch (err) {
    const e = err as Error & { code?: unknown };
    parentPort!.postMessage({
      id,
      ok: false,
      error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: e?.code },
    });
  }
});
