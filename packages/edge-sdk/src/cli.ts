import { existsSync } from 'node:fs';
import { runCli } from '@svc/platform/cli';
import { thresholds } from '@svc/scoring';
import { Command, InvalidArgumentError } from 'commander';
import { inspectBuffer } from './buffer-store.ts';
import { EDGE_SDK_VERSION } from './edge-sdk.ts';
import { replayTraces } from './replay.ts';
import { type TripStatus, toTripStatus } from './trip-status.ts';

/** `edge-sdk`: replay recorded traces through the SDK into an ingest endpoint, and inspect a buffer file. */

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

function tripLine(trip: TripStatus): string {
  const parts = [`${trip.tripId}  ${trip.state.padEnd(9)}`, new Date(trip.startMs).toISOString()];
  if (trip.endMs !== null) parts.push(`${Math.round((trip.endMs - trip.startMs) / 60_000)} min`);
  if (trip.distanceM !== null) parts.push(`${(trip.distanceM / 1000).toFixed(2)} km`);
  if (trip.state !== 'sent') parts.push(`${trip.sampleCount} samples`);
  if (trip.serverTripId) parts.push(`server ${trip.serverTripId} (${trip.serverStatus})`);
  if (trip.reason) parts.push(`reason: ${trip.reason}`);
  else if (trip.lastError && trip.state !== 'sent') parts.push(`last error: ${trip.lastError}`);
  return parts.join('  ');
}

const program = new Command()
  .name('edge-sdk')
  .description('The in-vehicle SDK: replay recorded traces as if live, inspect a buffer file')
  .version(EDGE_SDK_VERSION);

program
  .command('replay')
  .description('Feed GPX/GeoJSON/CSV/NDJSON/JSON traces through the SDK as if live and deliver the trips')
  .argument('<files...>', 'trace files (.gpx, .geojson, .csv, .ndjson, .json; .gz too)')
  .requiredOption('--endpoint <url>', 'ingest endpoint base URL, e.g. http://localhost:3100')
  .option('--key <ingest key>', 'ingest key (or env EDGE_SDK_INGEST_KEY)')
  .option('--vehicle <plate>', 'vehicle plate for every trip (default: the file header)')
  .option('--driver <id>', 'driver id for every trip (default: the file header)')
  .option('--device <id>', 'device id (default: one created for the buffer file)')
  .option('--speed <factor>', 'playback speed, 1 = real time', positiveNumber, 1)
  .option('--no-delay', 'feed samples as fast as possible')
  .option('--storage <file>', 'buffer file to use and keep (an interrupted replay resumes from it)')
  .option('--timeout <seconds>', 'how long to keep retrying uploads after the last sample', positiveNumber, 120)
  .option('--quiet', 'print only the final trip list')
  .action(async (files: string[], opts) => {
    const ingestKey: string | undefined = opts.key ?? process.env.EDGE_SDK_INGEST_KEY;
    if (!ingestKey) throw new Error('an ingest key is required: --key <key> or EDGE_SDK_INGEST_KEY');
    const result = await replayTraces({
      files,
      endpoint: opts.endpoint,
      ingestKey,
      vehicle: opts.vehicle,
      driverId: opts.driver,
      deviceId: opts.device,
      speed: opts.speed,
      noDelay: opts.delay === false,
      storagePath: opts.storage,
      flushTimeoutMs: opts.timeout * 1000,
      onProgress: opts.quiet ? undefined : (line) => console.log(line),
    });
    for (const trip of result.trips) console.log(tripLine(trip));
    if (result.trips.length === 0) {
      // Nothing to deliver is not a success for a command whose purpose is delivery.
      throw new Error(
        `no trip was recorded from ${result.samples} samples: a trip starts at the first speed above ${thresholds.TRIP_START_KMH} km/h, and one under ${thresholds.MIN_TRIP_DISTANCE_M / 1000} km or ${thresholds.MIN_TRIP_MOVING_S / 60} minutes moving is discarded`,
      );
    }
    const finished = result.trips.filter((t) => t.state !== 'recording');
    const sent = finished.filter((t) => t.state === 'sent').length;
    console.log(
      `${result.samples} samples replayed${result.resumedPast ? `, ${result.resumedPast} already recorded` : ''}` +
        // A recorder takes one sample per kind and instant; the later ones at the same time were left out.
        `${result.duplicates ? `, ${result.duplicates} left out (same kind and time as the one before)` : ''}; ` +
        `${sent} of ${finished.length} trips delivered`,
    );
    if (!result.delivered) {
      throw new Error(
        `${finished.length - sent} of ${finished.length} trips not delivered; buffer kept at ${result.storagePath} (rerun with --storage to resume)`,
      );
    }
  });

program
  .command('status')
  .description('List the trips in a buffer file and where each stands')
  .argument('<storage>', 'buffer file of an SDK (not in use by a running one)')
  .action((storage: string) => {
    if (!existsSync(storage)) throw new Error(`${storage}: no such buffer file`);
    // Read-only: an inspection never creates, migrates or recovers the buffer it looks at.
    const buffer = inspectBuffer(storage);
    for (const { row, liveSampleCount } of buffer.trips) console.log(tripLine(toTripStatus(row, liveSampleCount)));
    const counts = Object.entries(buffer.counts)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ');
    console.log(`device ${buffer.deviceId ?? 'unknown'}; ${counts}; ${buffer.usedBytes} bytes buffered`);
  });

// Usage mistakes and failures are one line on stderr and exit status 1; `| head` ends quietly.
await runCli(program);
