import { describe, expect, it } from 'vitest';
import { defaultSpeedLimit, type RoadContext, urbanFromZone, zoneSpeedLimit } from './default-speed-limit.ts';

const road = (highway: string, extra: Partial<RoadContext> = {}): RoadContext => ({
  highway,
  urban: false,
  oneway: false,
  dualCarriageway: false,
  roundabout: false,
  lanes: null,
  ref: null,
  motorroad: false,
  ...extra,
});

describe('defaultSpeedLimit', () => {
  it('uses the national urban and rural defaults', () => {
    expect(defaultSpeedLimit('FR', road('residential', { urban: true }))).toEqual({ kmh: 50, source: 'default' });
    expect(defaultSpeedLimit('FR', road('secondary'))).toEqual({ kmh: 80, source: 'default' });
    expect(defaultSpeedLimit('FR', road('motorway'))).toEqual({ kmh: 130, source: 'default' });
    expect(defaultSpeedLimit('FR', road('trunk', { oneway: true, dualCarriageway: true }))).toEqual({
      kmh: 110,
      source: 'default',
    });
    expect(defaultSpeedLimit('FR', road('living_street', { urban: true }))).toEqual({ kmh: 20, source: 'default' });
    expect(defaultSpeedLimit('MC', road('primary', { urban: true }))).toEqual({ kmh: 50, source: 'default' });
  });

  it('gives a rural roundabout or a one-way street the rural limit, not the dual-carriageway one', () => {
    // Both are one-way without separated directions; the OSM wiki's "dual carriageway" excludes roundabouts.
    expect(defaultSpeedLimit('FR', road('primary', { oneway: true })).kmh).toBe(80);
    expect(defaultSpeedLimit('IT', road('trunk', { oneway: true })).kmh).toBe(90);
  });

  it('gives French motorway slip roads the motorway default and Monaco living streets its single limit', () => {
    // The OSM wiki (revision 2607051) counts motorway_link as motorway (France: 130, Code de la route R413-2;
    // ramps are signed lower where it matters, which mappers tag as maxspeed) and lists one limit, 50 km/h, for
    // every road of Monaco, living streets included.
    expect(defaultSpeedLimit('FR', road('motorway_link', { oneway: true })).kmh).toBe(130);
    expect(defaultSpeedLimit('MC', road('living_street', { urban: true })).kmh).toBe(50);
  });

  it('gives French rural roads with two or more lanes in the direction of travel 90 km/h, per direction', () => {
    // OSM wiki revision 2607051, "rural road with 2 or more lanes in each direction": 90 (Code de la route R413-2).
    expect(defaultSpeedLimit('FR', road('secondary', { lanes: 4 })).kmh).toBe(90);
    expect(defaultSpeedLimit('FR', road('secondary', { lanes: 2 })).kmh).toBe(80);
    expect(defaultSpeedLimit('FR', road('secondary', { lanes: 3 })).kmh).toBe(80);
    // A three-lane road with a climbing lane: 90 up the two lanes, 80 down the single one.
    expect(defaultSpeedLimit('FR', road('primary', { lanes: 3, directionLanes: 2 })).kmh).toBe(90);
    expect(defaultSpeedLimit('FR', road('primary', { lanes: 3, directionLanes: 1 })).kmh).toBe(80);
    // A one-way road that is not a dual carriageway (a one-way secondary road, or tagged dual_carriageway=no).
    expect(defaultSpeedLimit('FR', road('secondary', { oneway: true, lanes: 2 })).kmh).toBe(90);
    expect(defaultSpeedLimit('FR', road('primary', { oneway: true, lanes: 1 })).kmh).toBe(80);
    // Dual carriageways keep 110 whatever their lanes; towns keep 50; untagged lanes keep 80.
    expect(defaultSpeedLimit('FR', road('trunk', { oneway: true, dualCarriageway: true, lanes: 2 })).kmh).toBe(110);
    expect(defaultSpeedLimit('FR', road('primary', { lanes: 4, urban: true })).kmh).toBe(50);
    expect(defaultSpeedLimit('FR', road('primary')).kmh).toBe(80);
  });

  it('never gives a roundabout a motorway, dual-carriageway or multi-lane default', () => {
    // A ring tagged motorway_link where slip roads meet local roads is a junction, not part of the motorway.
    expect(defaultSpeedLimit('FR', road('motorway_link', { oneway: true, roundabout: true })).kmh).toBe(80);
    expect(defaultSpeedLimit('FR', road('motorway_link', { oneway: true, roundabout: true, urban: true })).kmh).toBe(
      50,
    );
    expect(defaultSpeedLimit('FR', road('motorway', { oneway: true, roundabout: true })).kmh).toBe(80);
    expect(defaultSpeedLimit('FR', road('primary', { oneway: true, roundabout: true, lanes: 2 })).kmh).toBe(80);
    expect(defaultSpeedLimit('DE', road('motorway_link', { oneway: true, roundabout: true, lanes: 2 }))).toEqual({
      kmh: 100,
      source: 'default',
    });
    // The slip roads themselves stay motorway (above), and a zone tag saying motorway still means it.
    expect(
      zoneSpeedLimit({ country: 'FR', zone: 'motorway' }, road('motorway_link', { oneway: true, roundabout: true }))
        ?.kmh,
    ).toBe(130);
  });

  it('applies the lane conditions the wiki gives for Germany, Belgium and Poland', () => {
    // Germany: no general limit outside towns with two or more lanes each way (StVO § 3 (3) 2c).
    expect(defaultSpeedLimit('DE', road('primary', { lanes: 4 })).unlimited).toBe(true);
    expect(defaultSpeedLimit('DE', road('primary', { lanes: 2 })).kmh).toBe(100);
    // Belgium 120 and Poland 100 need two lanes in each direction of the dual carriageway.
    const dual = (lanes: number | null) => road('trunk', { oneway: true, dualCarriageway: true, lanes });
    expect(defaultSpeedLimit('BE', dual(2)).kmh).toBe(120);
    expect(defaultSpeedLimit('BE', dual(1)).kmh).toBe(90);
    expect(defaultSpeedLimit('BE', dual(null)).kmh).toBe(90);
    expect(defaultSpeedLimit('PL', dual(2)).kmh).toBe(100);
    expect(defaultSpeedLimit('PL', dual(1)).kmh).toBe(90);
  });

  it('gives Czech and Polish motor roads their town and single-carriageway values, and Spanish travesías 50', () => {
    // OSM wiki revision 2607051: CZ urban motorroad 80, rural motorroad with single carriageway 90, else 110;
    // PL motorroad with single carriageway 100, with dual carriageway 120; ES "travesía" ({urban} and ref) 50.
    const motorroad = (extra: Partial<RoadContext>) => road('trunk', { motorroad: true, ...extra });
    expect(defaultSpeedLimit('CZ', motorroad({ oneway: true, dualCarriageway: true })).kmh).toBe(110);
    expect(defaultSpeedLimit('CZ', motorroad({})).kmh).toBe(90);
    expect(defaultSpeedLimit('CZ', motorroad({ urban: true, oneway: true, dualCarriageway: true })).kmh).toBe(80);
    expect(defaultSpeedLimit('PL', motorroad({ oneway: true, dualCarriageway: true })).kmh).toBe(120);
    expect(defaultSpeedLimit('PL', motorroad({})).kmh).toBe(100);
    expect(defaultSpeedLimit('AT', motorroad({})).kmh).toBe(100);
    expect(defaultSpeedLimit('ES', road('primary', { urban: true, ref: 'N-340' })).kmh).toBe(50);
    expect(defaultSpeedLimit('ES', road('residential', { urban: true })).kmh).toBe(30);
    expect(defaultSpeedLimit('FR', road('primary', { urban: true, ref: 'D 6007' })).kmh).toBe(50);
  });

  it('marks German motorways as unlimited and living streets as walking pace', () => {
    expect(defaultSpeedLimit('DE', road('motorway'))).toEqual({ kmh: null, source: 'default', unlimited: true });
    expect(defaultSpeedLimit('DE', road('living_street', { urban: true })).kmh).toBe(7);
  });

  it("applies Spain's 30 km/h single-lane and 50 km/h multi-lane urban rule", () => {
    expect(defaultSpeedLimit('ES', road('primary', { urban: true, lanes: 2 })).kmh).toBe(30);
    expect(defaultSpeedLimit('ES', road('primary', { urban: true, lanes: 4 })).kmh).toBe(50);
  });

  it("uses Andorra's road-number rule outside towns", () => {
    expect(defaultSpeedLimit('AD', road('primary', { ref: 'CG-3' })).kmh).toBe(90);
    expect(defaultSpeedLimit('AD', road('secondary', { ref: 'CS-340' })).kmh).toBe(60);
    expect(defaultSpeedLimit('AD', road('primary', { ref: 'CG-3', urban: true })).kmh).toBe(50);
  });

  it('converts mph countries to km/h', () => {
    expect(defaultSpeedLimit('GB', road('motorway')).kmh).toBeCloseTo(112.65, 2);
  });

  it('reports unknown where the country has no table entry', () => {
    expect(defaultSpeedLimit('ZZ', road('primary'))).toEqual({ kmh: null, source: 'unknown' });
    expect(defaultSpeedLimit(null, road('primary'))).toEqual({ kmh: null, source: 'unknown' });
  });
});

describe('zoneSpeedLimit', () => {
  it('resolves zone codes with their own country as explicit limits', () => {
    expect(zoneSpeedLimit({ country: 'FR', zone: 'urban' }, road('primary'))).toEqual({ kmh: 50, source: 'explicit' });
    expect(zoneSpeedLimit({ country: 'DE', zone: 'rural' }, road('primary', { urban: true }))).toEqual({
      kmh: 100,
      source: 'explicit',
    });
    expect(zoneSpeedLimit({ country: 'RO', zone: 'urban' }, road('primary'))?.kmh).toBe(50);
    expect(zoneSpeedLimit({ country: 'DE', zone: 'motorway' }, road('primary'))?.unlimited).toBe(true);
    expect(zoneSpeedLimit({ country: 'GB', zone: 'nsl_dual' }, road('primary'))?.kmh).toBeCloseTo(112.65, 2);
    expect(zoneSpeedLimit({ country: 'ZZ', zone: 'urban' }, road('primary'))).toBeNull();
  });

  it('tells urban from rural zones', () => {
    expect(urbanFromZone({ kind: 'zone', country: 'FR', zone: 'urban' })).toBe(true);
    expect(urbanFromZone({ kind: 'zone', country: 'FR', zone: 'rural' })).toBe(false);
    expect(urbanFromZone({ kind: 'speed', kmh: 50 })).toBeNull();
  });
});
