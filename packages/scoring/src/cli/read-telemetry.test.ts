import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTelemetryFile } from './read-telemetry.ts';

const dir = mkdtempSync(join(tmpdir(), 'scoring-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readTelemetryFile', () => {
  it('keeps the receiver’s speed and course of a plain GPS trace as the samples’ speed and heading', async () => {
    const file = join(dir, 'motion.gpx');
    writeFileSync(
      file,
      '<gpx version="1.0"><trk><trkseg>' +
        '<trkpt lat="43.73" lon="7.42"><time>2024-05-01T08:00:00Z</time><course>90</course><speed>8.5</speed></trkpt>' +
        '<trkpt lat="43.7301" lon="7.4201"><time>2024-05-01T08:00:01Z</time></trkpt>' +
        '</trkseg></trk></gpx>',
    );
    const batch = await readTelemetryFile(file);
    expect(batch.samples).toEqual([
      { type: 'gps', t: Date.parse('2024-05-01T08:00:00Z'), lon: 7.42, lat: 43.73, speedMps: 8.5, headingDeg: 90 },
      { type: 'gps', t: Date.parse('2024-05-01T08:00:01Z'), lon: 7.4201, lat: 43.7301 },
    ]);
  });
});
