import { parentPort, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { loadGraph } from '@svc/roads';
import { planTrips, simulateFleetTrips } from '@svc/simulator';
import { sandboxFleet } from './sandbox-fleet.ts';

/** What the seeding thread is given. */
export interface SeedThreadData {
  graphFile: string;
  ingestUrl: string;
  /** Ingest key per sandbox fleet id. */
  keys: Record<string, string>;
  tripCount: number;
  days: number;
  /** First planned day, YYYY-MM-DD. */
  startDate: string;
  nowMs: number;
  imuHz: number;
}

/** Progress reported to the parent after each trip. */
export interface SeedProgress {
  type: 'progress' | 'done' | 'error';
  planned: number;
  sent: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  lastError?: string;
}

const data = workerData as SeedThreadData;
const graph = loadGraph(data.graphFile);
const { fleet, fleetOfPlate } = sandboxFleet(graph);
const plans = planTrips({ fleet, graph, days: data.days, startDate: data.startDate })
  .filter((p) => p.startMs < data.nowMs - 3_600_000)
  .slice(-data.tripCount);
const progress: SeedProgress = {
  type: 'progress',
  planned: plans.length,
  sent: 0,
  accepted: 0,
  duplicates: 0,
  rejected: 0,
};

/** Posts one trip like an edge device would: gzip JSON, its client trip id as Idempotency-Key, retries with back-off. */
async function upload(body: Buffer, key: string, clientTripId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${data.ingestUrl}/ingest/v1/trips`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'idempotency-key': clientTripId,
        },
        body,
      });
      const text = await res.text();
      if (res.status === 429 || res.status >= 500) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      if (res.status >= 400) progress.lastError = `${clientTripId}: HTTP ${res.status} ${text.slice(0, 300)}`;
      return res.status;
    } catch (err) {
      if (attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, Math.min(30_000, 500 * 2 ** attempt)));
    }
  }
}

try {
  for (const trip of simulateFleetTrips({ fleet, graph, plans, imuHz: data.imuHz })) {
    const plate = trip.vehicle.plate;
    const fleetId = fleetOfPlate.get(plate)!;
    const status = await upload(gzipSync(JSON.stringify(trip.batch)), data.keys[fleetId]!, trip.plan.id);
    progress.sent++;
    if (status === 202) progress.accepted++;
    else if (status === 200) progress.duplicates++;
    else progress.rejected++;
    parentPort!.postMessage({ ...progress });
  }
  parentPort!.postMessage({ ...progress, type: 'done' });
} catch (err) {
  parentPort!.postMessage({ ...progress, type: 'error', lastError: err instanceof Error ? err.message : String(err) });
}
