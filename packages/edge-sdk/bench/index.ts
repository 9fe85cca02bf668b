import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Sample } from '@svc/scoring';
import { EdgeSdk, type EdgeSdkOptions } from '../src/index.ts';
import { drive } from '../test/drive.ts';
import { FakeIngestServer } from '../test/fake-ingest-server.ts';

// Figures of the edge SDK on this machine: samples recorded per second into the durable buffer (one
// transaction per call, or per batch), and the delivery of one long trip to a local ingest server.
// Prints figures; asserts nothing about speed.

const T0 = Date.UTC(2025, 5, 6, 8);
const dir = mkdtempSync(path.join(os.tmpdir(), 'edge-sdk-bench-'));
let run = 0;

/** A drive with 1 Hz GPS and `imuHz` accelerometer readings per second, all with distinct times. */
function samples(seconds: number, imuHz: number, startMs = T0): Sample[] {
  return drive({ startMs, legs: [{ move: seconds, speedKmh: 50 }], accelHz: imuHz }).map((s) =>
    s.type === 'accel' ? { ...s, t: s.t + 1 } : s,
  );
}

function open(options: Partial<EdgeSdkOptions>): EdgeSdk {
  return EdgeSdk.open({ storagePath: path.join(dir, `bench-${run++}.db`), upload: false, ...options });
}

async function recordRate(label: string, options: Partial<EdgeSdkOptions>, input: Sample[], batch: number) {
  const sdk = open(options);
  const started = performance.now();
  if (batch === 1) for (const sample of input) sdk.record(sample);
  else for (let i = 0; i < input.length; i += batch) sdk.recordMany(input.slice(i, i + batch));
  const seconds = (performance.now() - started) / 1000;
  await sdk.close();
  const perSecond = Math.round(input.length / seconds);
  console.log(
    `${label.padEnd(58)} ${String(perSecond).padStart(8)} samples/s  (${input.length} in ${seconds.toFixed(2)} s)`,
  );
}

console.log(
  `edge-sdk bench — ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cpus, node ${process.version}`,
);
console.log('');
await recordRate('record(), one call per sample, durability full (fsync)', { durability: 'full' }, samples(300, 4), 1);
await recordRate('record(), one call per sample, durability normal', { durability: 'normal' }, samples(600, 9), 1);
await recordRate(
  'recordMany(), 50 per call (IMU burst), durability full',
  { durability: 'full' },
  samples(1200, 49),
  50,
);
await recordRate('recordMany(), 500 per call, durability normal', { durability: 'normal' }, samples(1200, 49), 500);

// Delivery: a 20-minute trip, 1 Hz GPS and 50 Hz accelerometer, to a local ingest server.
const server = await FakeIngestServer.start({ maxBodyBytes: 256 * 1024 * 1024 });
const sdk = EdgeSdk.open({
  storagePath: path.join(dir, 'deliver.db'),
  endpoint: server.url,
  ingestKey: 'test-key-1',
  durability: 'normal',
});
const trip = samples(1200, 50, T0 + 86_400_000);
for (let i = 0; i < trip.length; i += 1000) sdk.recordMany(trip.slice(i, i + 1000));
sdk.endTrip();
const started = performance.now();
await sdk.flush({ timeoutMs: 120_000 });
const ms = performance.now() - started;
const [request] = server.requests;
const stored = server.storedTrips()[0];
console.log('');
console.log(
  `deliver one 20-min trip (${trip.length} samples): ${ms.toFixed(0)} ms, ${((request?.bodyBytes ?? 0) / 1024).toFixed(0)} KiB gzipped, ` +
    `${stored?.batch.samples.length ?? 0} samples stored by the server`,
);
await sdk.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
