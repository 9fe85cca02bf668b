import { describe, expect, it } from 'vitest';
import { readCsv } from './csv-connector.ts';

const rows = (n: number, row: (i: number) => string) => Array.from({ length: n }, (_, i) => row(i));
const iso = (i: number) => new Date(Date.UTC(2026, 10, 3, 10, 0, i)).toISOString();

describe('readCsv', () => {
  it('reads decimal commas in a file separated by semicolons, as European spreadsheets export it', () => {
    const text = ['lat;lon;time;speed_kmh;altitude', ...rows(3, (i) => `48,1${i};11,57;${iso(i)};36,0;512,5`)].join(
      '\n',
    );
    const { trips, rejected } = readCsv(text);
    expect(rejected).toEqual([]);
    expect(trips[0]!.samples[1]).toEqual({
      type: 'gps',
      t: Date.UTC(2026, 10, 3, 10, 0, 1),
      lat: 48.11,
      lon: 11.57,
      speedMps: 10,
      altitudeM: 512.5,
    });
  });

  it('reads columns whose header names a unit, converting the speed, and leaves a unit it cannot convert unread', () => {
    const header = (speed: string) =>
      `Time (UTC),Latitude (deg),Longitude [°],${speed},Heading (deg),Accuracy (m),Altitude (ft)`;
    const read = (speed: string, value: string) =>
      readCsv([header(speed), ...rows(3, (i) => `${iso(i)},48.1${i},11.57,${value},90,4,1640`)].join('\n'));
    const expected = { type: 'gps', lat: 48.11, lon: 11.57, headingDeg: 90, accuracyM: 4 };
    for (const [speed, value, mps] of [
      ['Speed (km/h)', '36', 10],
      ['Speed(m/s)', '10', 10],
      ['speed [mph]', '22.369', 10],
      ['Speed (knots)', '19.438', 10],
    ] as const) {
      const { trips, rejected } = read(speed, value);
      expect(rejected, speed).toEqual([]);
      // Altitude in feet is not taken for metres: that column is not read at all.
      expect(trips[0]!.samples[1], speed).toEqual({
        ...expected,
        t: Date.UTC(2026, 10, 3, 10, 0, 1),
        speedMps: expect.closeTo(mps, 3),
      });
    }
    // A bad value is named by the column as the header writes it.
    expect(read('Speed (km/h)', 'fast').rejected).toEqual([
      { location: 'the file', reason: 'line 2: Speed (km/h) "fast" is not a number' },
    ]);
    // A speed in a unit the reader does not know is left out (the positions give the speed), not read as m/s.
    expect(read('Speed (furlongs/fortnight)', '60361').trips[0]!.samples[1]).not.toHaveProperty('speedMps');
  });

  it("takes the separator from Excel's `sep=` line before the header", () => {
    const text = ['sep=;', 'lat;lon;time;speed_kmh', ...rows(3, (i) => `48,1${i};11,57;${iso(i)};36`), ''].join('\r\n');
    const { trips, rejected } = readCsv(text);
    expect(rejected).toEqual([]);
    expect(trips.map((t) => t.label)).toEqual(['the file (lines 3-5)']);
    expect(trips[0]!.samples[1]).toMatchObject({ lat: 48.11, lon: 11.57, speedMps: 10 });
  });

  it('rejects a trip with a value that is not a number, naming the line and the column, and keeps the others', () => {
    const text = [
      'trip_id,lon,lat,time,speed,heading',
      ...rows(3, (i) => `A,7.42,43.73,${iso(i)},3.5,90`),
      ...rows(3, (i) => `B,7.42,43.73,${iso(100 + i)},${i === 1 ? 'fast' : '4'},90`),
    ].join('\n');
    const { trips, rejected } = readCsv(text);
    expect(trips.map((t) => t.label)).toEqual(['trip "A" (lines 2-4)']);
    expect(rejected).toEqual([{ location: 'trip "B"', reason: 'line 6: speed "fast" is not a number' }]);
  });

  it('keeps commas as separators, not decimals, in a comma-separated file', () => {
    const { trips, rejected } = readCsv(['lon,lat,time,heading', `7.42,43.73,${iso(0)},"1,5"`].join('\n'));
    expect(trips).toEqual([]);
    expect(rejected).toEqual([{ location: 'the file', reason: 'line 2: heading "1,5" is not a number' }]);
  });

  it('rejects times relative to the start (0, 1, 2 ...) with a reason that says so', () => {
    const { trips, rejected } = readCsv(['lon,lat,time', ...rows(3, (i) => `7.42,43.7${i},${i}`)].join('\n'));
    expect(trips).toEqual([]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toMatch(/^line 2: the time 1970-01-01T00:00:00.000Z is before 2000: relative times/);
  });

  it('rejects a row with an empty or blank longitude or latitude instead of reading it as 0', () => {
    for (const [lon, lat] of [
      ['', '43.73'],
      ['7.42', ''],
      ['  ', '43.73'],
      ['7.42', '""'],
    ]) {
      const text = [
        'lon,lat,time',
        ...rows(3, (i) => (i === 1 ? `${lon},${lat},${iso(i)}` : `7.42,43.7${i},${iso(i)}`)),
      ].join('\n');
      const { trips, rejected } = readCsv(text);
      expect(trips, `${lon}|${lat}`).toEqual([]);
      expect(rejected, `${lon}|${lat}`).toEqual([
        { location: 'the file', reason: expect.stringMatching(/^line 3: (longitude|latitude) "" is not a number/) },
      ]);
    }
  });
});
