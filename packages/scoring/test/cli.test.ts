import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { drive, emit, urbanDrive } from './helpers/synthetic-drive.ts';

const run = promisify(execFile);
const bin = new URL('../bin/scoring.js', import.meta.url).pathname;
const munich = new URL('../../../../shared/data/traces/munich-x0001-001.json', import.meta.url).pathname;

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npx scoring score', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scoring-cli-'));

  it('scores a telemetry NDJSON file with a header line and prints the API shape', async () => {
    const batch = emit(drive(urbanDrive()), { imu: 'device', phoneMonitored: true });
    const file = join(dir, 'trip.ndjson');
    const { samples, ...meta } = batch;
    writeFileSync(
      file,
      [JSON.stringify({ type: 'header', ...meta, vehicle: 'M-XY 42' }), ...samples.map((s) => JSON.stringify(s))].join(
        '\n',
      ),
    );
    const { code, stdout } = await cli('score', file);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ vehicle: 'M-XY 42', mapMatched: false, tier: 'Safe' });
    expect(typeof out.overallScore).toBe('number');
    expect(out.themes).toHaveLength(6);
    expect(out.themes[0].factors[0]).toHaveProperty('key', 'speedingIntensity');
    expect(out.weakestTheme).toHaveProperty('label');
    expect(out.startDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(out.route).toBeUndefined();
  });

  it.skipIf(!existsSync(munich))('scores the real Munich trace (plain positions, WKT)', async () => {
    const { code, stdout } = await cli('score', munich, '--compact');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout).mapMatched).toBe(false);
  });

  it('answers a usage mistake in one short line, not with the whole help text', async () => {
    const file = join(dir, 'any.gpx');
    writeFileSync(file, '<gpx/>');
    for (const [args, expected] of [
      [['score', file, '--bogus'], "scoring: unknown option '--bogus'\n"],
      [['score'], "scoring: missing required argument 'trace-file'\n"],
      [
        ['score', file, '--time-zone', 'Mars/Base'],
        "scoring: option '--time-zone <zone>' argument 'Mars/Base' is invalid. must be an IANA time zone such as Europe/Berlin\n",
      ],
      [['scor', file], "scoring: unknown command 'scor'\n(Did you mean score?)\n"],
    ] as const) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(expected);
    }
  });

  it('fails with one line naming the file and the record', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ samples: [{ type: 'gps', t: 1_700_000_000_000, lon: 200, lat: 48 }] }));
    const invalid = await cli('score', bad);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe(`scoring: ${bad}: samples[0].lon must be between -180 and 180 degrees (got 200)\n`);
    const missing = await cli('score', join(dir, 'nope.gpx'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('cannot read');
  });
});
