import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTelemetryTrace } from './trace-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readTelemetryTrace', () => {
  it('replays a CSV trace’s speed and heading as the fixes’ own, and refuses a speed no vehicle drives, naming the point', async () => {
    const file = join(dir, 'motion.csv');
    writeFileSync(file, 'time,lat,lon,speed,heading\n2024-05-01T08:00:00Z,43.73,7.42,8.5,359.5\n');
    const trace = await readTelemetryTrace(file);
    expect(trace.samples).toEqual([
      { type: 'gps', t: Date.parse('2024-05-01T08:00:00Z'), lon: 7.42, lat: 43.73, speedMps: 8.5, headingDeg: 359.5 },
    ]);
    const fast = join(dir, 'too-fast.csv');
    writeFileSync(fast, 'time,lat,lon,speed\n2024-05-01T08:00:00Z,43.73,7.42,900\n');
    await expect(readTelemetryTrace(fast)).rejects.toThrow(/point 0/);
  });
});
