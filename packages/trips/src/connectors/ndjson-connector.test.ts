import { describe, expect, it } from 'vitest';
import { readNdjson } from './ndjson-connector.ts';

const T0 = Date.UTC(2026, 10, 3, 10, 0, 0);
const gps = (i: number) => JSON.stringify({ type: 'gps', t: T0 + i * 1000, lon: 7.42 + i * 0.0002, lat: 43.73 });

describe('readNdjson', () => {
  it('names a trip cut short in its last line by the lines it spans, that line included', () => {
    // A logger that lost power in the middle of a line, with Windows line ends.
    const text = `${[0, 1, 2].map(gps).join('\r\n')}\r\n${gps(3).slice(0, 25)}`;
    const { trips, rejected } = readNdjson(text);
    expect(trips).toEqual([]);
    expect(rejected).toEqual([{ location: 'lines 1-4', reason: expect.stringMatching(/^line 4: not valid JSON \(/) }]);
  });

  it('names a trip by its lines from its header to its last sample, blank lines between them ignored', () => {
    const text = ['{"type":"header","clientTripId":"t-1"}', gps(0), '', gps(1), ''].join('\n');
    const { trips, rejected } = readNdjson(text);
    expect(rejected).toEqual([]);
    expect(trips.map((t) => [t.label, t.locate(1)])).toEqual([['lines 1-4', 'line 4']]);
  });
});
