import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/simulator.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'simulator-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function simulator(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const TRIP = ['trip', '--from', '4.50,45.49', '--to', '4.52,45.51', '--imu-hz', '0'];

describe('simulator CLI', () => {
  it('writes a trip and its truth to files', async () => {
    const out = join(dir, 'trip.ndjson');
    const truth = join(dir, 'truth.json');
    const result = await simulator(...TRIP, '-o', out, '--truth', truth);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(out) && existsSync(truth)).toBe(true);
  });

  it('starts the trip at the --start time, read with its zone offset', async () => {
    const result = await simulator(...TRIP, '--start', '2025-06-02T09:30:00+02:00');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const times = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { t?: number })
      .flatMap((x) => (typeof x.t === 'number' ? [x.t] : []));
    expect(Math.min(...times)).toBe(Date.UTC(2025, 5, 2, 7, 30));
  });

  it('answers usage mistakes in one line prefixed by the command', async () => {
    for (const [args, expected] of [
      [['fleets'], "simulator: unknown command 'fleets'\n(Did you mean fleet?)\n"],
      [['trip', '--to', '4.52,45.51'], "simulator: required option '--from <lon,lat>' not specified\n"],
      [
        ['fleet', '--trips', 'abc'],
        "simulator: option '--trips <n>' argument 'abc' is invalid. --trips must be an integer from 1 to 10000000\n",
      ],
      [
        [...TRIP, '--start', 'March 3, 2025'],
        "simulator: option '--start <iso>' argument 'March 3, 2025' is invalid. --start must be an ISO 8601 time with its zone, e.g. 2025-03-03T08:00:00Z\n",
      ],
      [
        // Date.parse would roll it over into March.
        [...TRIP, '--start', '2025-02-30T08:00:00Z'],
        "simulator: option '--start <iso>' argument '2025-02-30T08:00:00Z' is invalid. --start must be an ISO 8601 time with its zone, e.g. 2025-03-03T08:00:00Z\n",
      ],
      [
        [...TRIP, '--start', '1999-12-31T23:00:00Z'],
        "simulator: option '--start <iso>' argument '1999-12-31T23:00:00Z' is invalid. --start must be from 2000-01-01 to 2099-12-30 UTC: telemetry takes no other years\n",
      ],
      [
        ['fleet', '--start-date', '2025-02-30'],
        "simulator: option '--start-date <date>' argument '2025-02-30' is invalid. --start-date must be a day of the calendar as YYYY-MM-DD, e.g. 2025-03-03\n",
      ],
      [
        ['fleet', '--start-date', '1969-12-31'],
        'simulator: --start-date 1969-12-31 with --days 7: the schedule must lie from 2000-01-02 to 2099-12-29, the years telemetry takes\n',
      ],
    ] as const) {
      const result = await simulator(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(expected);
    }
  });

  it('fails with one line, no stack, when an output file cannot be written', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder, { recursive: true });
    for (const args of [
      [...TRIP, '-o', folder],
      [...TRIP, '-o', join(dir, 'ok.ndjson'), '--truth', folder],
      ['fleet', '--trips', '1', '--imu-hz', '0', '-o', folder],
      ['fleet', '--trips', '1', '--imu-hz', '0', '-o', join(dir, 'fleet.ndjson'), '--truth', folder],
      ['fleet', '--trips', '1', '--imu-hz', '0', '-o', join(dir, 'fleet.ndjson'), '--fleet-out', folder],
    ]) {
      const result = await simulator(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^simulator: cannot write ${folder}: .*\\n$`));
    }
  });

  it("puts every fleet vehicle's IMU in a phone frame with --device-frame, and keeps each vehicle's own frame without it", async () => {
    const frames = async (...extra: string[]) => {
      const result = await simulator('fleet', '--trips', '6', '--imu-hz', '1', '--no-phone', ...extra);
      expect(result.code).toBe(0);
      return result.stdout
        .split('\n')
        .filter((line) => line.includes('"type":"header"'))
        .map((line) => (JSON.parse(line) as { imuFrame: string }).imuFrame);
    };
    const own = await frames();
    // The seeded fleet mixes fixed units and loose phones, so the flag has something to change.
    expect(new Set(own)).toEqual(new Set(['vehicle', 'device']));
    expect(await frames('--device-frame')).toEqual(own.map(() => 'device'));
  });
});
