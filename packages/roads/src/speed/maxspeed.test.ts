import { describe, expect, it } from 'vitest';
import { parseMaxspeed } from './maxspeed.ts';

describe('parseMaxspeed', () => {
  it.each([
    ['50', 50],
    ['50 km/h', 50],
    ['50kmh', 50],
    ['7.5', 7.5],
    ['30 mph', 48.28],
    ['30mph', 48.28],
    ['10 knots', 18.52],
    ['DE:zone30', 30],
    ['DE:zone:30', 30],
    ['GB:zone20', 32.19],
    ['90;30;90', 90],
  ])('reads %s as %s km/h', (raw, kmh) => {
    const parsed = parseMaxspeed(raw);
    expect(parsed?.kind).toBe('speed');
    expect(parsed && parsed.kind === 'speed' ? parsed.kmh : 0).toBeCloseTo(kmh, 2);
  });

  it('reads none, walk and signalled limits', () => {
    expect(parseMaxspeed('none')).toEqual({ kind: 'none' });
    expect(parseMaxspeed('walk')).toEqual({ kind: 'walk' });
    expect(parseMaxspeed('signals')).toEqual({ kind: 'variable' });
  });

  it('reads zone codes with their country', () => {
    expect(parseMaxspeed('FR:urban')).toEqual({ kind: 'zone', country: 'FR', zone: 'urban' });
    expect(parseMaxspeed('DE:rural')).toEqual({ kind: 'zone', country: 'DE', zone: 'rural' });
    expect(parseMaxspeed('RO:urban')).toEqual({ kind: 'zone', country: 'RO', zone: 'urban' });
    expect(parseMaxspeed('BE-VLG:rural')).toEqual({ kind: 'zone', country: 'BE', zone: 'rural' });
    expect(parseMaxspeed('GB:nsl_single')).toEqual({ kind: 'zone', country: 'GB', zone: 'nsl_single' });
  });

  it('rejects values it cannot interpret instead of guessing', () => {
    for (const raw of ['', 'fast', '-20', '0', '900', 'km/h', undefined, null]) expect(parseMaxspeed(raw)).toBeNull();
  });
});
