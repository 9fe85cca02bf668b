import { describe, expect, it } from 'vitest';
import { readNdjson } from './ndjson-connector.ts';

const T0 = Date.UTC(2026, 10, 3, 10, 0, 0);
const gps = (i: number) => JSON.stringify({ type: 'gps', t: T0 + i * 1000, lon: 7.42 + i * 0.0002, lat: 43.73 });

describe('readNdjson', () => {
  it('names a trip rejected for an unreadable last line by the lines it spans, that line included', () => {
    const text = `${[0, 1, 2].map(gps).join('\r\n')}\r\n${gps(3).slice(0, 25)}\r\n`;
    const { trips, rejected } = readNdjson(text);
    expect(trips).toEqual([]);
    expect(rejected).toEqual([{ location: 'lines 1-4', reason: expect.stringMatching(/^line 4: not valid JSON \(/) }]);
  });

  it('imports a trip whose file was cut off in its last line without that line, listed as skipped', () => {
    // A logger that lost power in the middle of a line, with Windows line ends: no line end after the last one.
    const text = `${[0, 1, 2].map(gps).join('\r\n')}\r\n${gps(3).slice(0, 25)}`;
    const { trips, rejected, skipped } = readNdjson(text);
    expect(rejected).toEqual([]);
    expect(trips.map((t) => [t.label, t.samples.length])).toEqual([['lines 1-3', 3]]);
    expect(skipped).toEqual([
      { location: 'line 4', reason: expect.stringMatching(/^cut short: the file ends in the middle/) },
    ]);
    // A file of only such a line has nothing to import.
    expect(readNdjson(gps(0).slice(0, 25)).rejected).toEqual([
      { location: 'file', reason: 'the file holds only a line cut short' },
    ]);
  });

  it('names a trip by its lines from its header to its last sample, blank lines between them ignored', () => {
    const text = ['{"type":"header","clientTripId":"t-1"}', gps(0), '', gps(1), ''].join('\n');
    const { trips, rejected } = readNdjson(text);
    expect(rejected).toEqual([]);
    expect(trips.map((t) => [t.label, t.locate(1)])).toEqual([['lines 1-4', 'line 4']]);
  });
});
