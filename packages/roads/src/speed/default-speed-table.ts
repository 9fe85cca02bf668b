/**
 * Legal default speed limits for passenger cars, by country and road context, in the country's unit.
 *
 * Source: OpenStreetMap wiki, "Default speed limits", https://wiki.openstreetmap.org/wiki/Default_speed_limits
 * (revision 2607051, 2023-10-21; wiki content licence CC BY-SA 2.0), which cites each country's traffic law,
 * e.g. France: Code de la route art. R413-2 and R413-3; Germany: StVO § 3 (3) and Autobahn-Richtgeschwindigkeits-
 * Verordnung (advisory 130, no general limit); Spain: Reglamento General de Circulación art. 48 and 50 as amended
 * by Real Decreto 970/2020; Italy: Codice della strada art. 142; Andorra: Codi de circulació (CG roads 90,
 * CS roads 60, towns 50); Monaco: Code de la route monégasque (50 throughout the principality).
 * Lane-dependent defaults from the same revision: France 90 on rural roads with two or more lanes in the direction
 * of travel (R413-2 as amended in 2018: the 80 applies to the other roads outside towns), Germany no general limit
 * there (StVO § 3 (3) 2c), and Belgium's 120 and Poland's 100 on rural dual carriageways only with two or more lanes
 * in each direction. Also from it: Czech motor roads 80 in towns and 90 outside without separated directions, Polish
 * ones 100 without, and Spain's 50 on numbered roads through towns.
 * Values were read from that page and re-keyed into this smaller model (cars only; no vehicle-class,
 * weather or time conditions).
 *
 * `'none'` means no general limit (the edge gets `unlimited: true`); `'walk'` is walking pace.
 */
export interface CountrySpeedDefaults {
  /** Unit of every number in this entry. */
  unit: 'kmh' | 'mph';
  /** Inside built-up areas. */
  urban: number;
  /** Urban roads with two or more lanes in each direction, where the law sets a different value. */
  urbanMultiLane?: number;
  /** Outside built-up areas, ordinary roads. */
  rural: number;
  /** Outside built-up areas, dual carriageways (separated directions) of trunk/primary class. */
  ruralDualCarriageway?: number | 'none';
  /**
   * Lanes a dual carriageway needs in the direction of travel for `ruralDualCarriageway` to apply, where the law
   * ties that limit to them (Belgium and Poland: two). Untagged lanes do not qualify.
   */
  ruralDualCarriagewayMinLanes?: number;
  /**
   * Outside built-up areas, other roads with two or more lanes in the direction of travel (untagged lanes do not
   * qualify; roundabouts are junctions and keep `rural`).
   */
  ruralMultiLane?: number | 'none';
  /** Roads signed as motor roads (`motorroad=yes`, "voie express", "Kraftfahrstraße"). */
  motorroad?: number | 'none';
  /** Motor roads inside built-up areas, where the law sets a different value (Czechia: 80). */
  urbanMotorroad?: number;
  /** Motor roads outside built-up areas without separated directions, where the law sets a different value. */
  motorroadSingleCarriageway?: number;
  /**
   * Numbered roads (`ref`) inside built-up areas, where the law sets a different value: Spain's "travesía", the
   * stretch of an interurban road through a town, 50 km/h where other urban streets have 30 (the wiki infers it
   * from `ref`).
   */
  urbanNumbered?: number;
  motorway: number | 'none';
  /** Motorways inside built-up areas, where the law sets a different value. */
  urbanMotorway?: number;
  livingStreet?: number | 'walk';
  /** Limits tied to road numbers (rural roads only): the first prefix the `ref` starts with wins. */
  refPrefixes?: ReadonlyArray<readonly [prefix: string, limit: number]>;
}

export const DEFAULT_SPEED_TABLE: Readonly<Record<string, CountrySpeedDefaults>> = {
  AD: {
    unit: 'kmh',
    urban: 50,
    rural: 60,
    motorroad: 120,
    motorway: 120,
    livingStreet: 20,
    refPrefixes: [
      ['CG', 90],
      ['CS', 60],
    ],
  },
  AT: { unit: 'kmh', urban: 50, rural: 100, motorroad: 100, motorway: 130, livingStreet: 'walk' },
  // Belgium's defaults are regional; Wallonia's (rural 90) is used for the whole country.
  BE: {
    unit: 'kmh',
    urban: 50,
    rural: 90,
    ruralDualCarriageway: 120,
    ruralDualCarriagewayMinLanes: 2,
    motorway: 120,
    livingStreet: 20,
  },
  BG: { unit: 'kmh', urban: 50, rural: 90, motorroad: 120, motorway: 140, livingStreet: 20 },
  CH: { unit: 'kmh', urban: 50, rural: 80, motorroad: 100, motorway: 120, livingStreet: 20 },
  CZ: {
    unit: 'kmh',
    urban: 50,
    rural: 90,
    motorroad: 110,
    urbanMotorroad: 80,
    motorroadSingleCarriageway: 90,
    motorway: 130,
    urbanMotorway: 80,
    livingStreet: 20,
  },
  DE: {
    unit: 'kmh',
    urban: 50,
    rural: 100,
    ruralDualCarriageway: 'none',
    ruralMultiLane: 'none',
    motorway: 'none',
    livingStreet: 'walk',
  },
  DK: { unit: 'kmh', urban: 50, rural: 80, motorroad: 80, motorway: 130, livingStreet: 15 },
  EE: { unit: 'kmh', urban: 50, rural: 90, motorway: 90, livingStreet: 20 },
  ES: {
    unit: 'kmh',
    urban: 30,
    urbanMultiLane: 50,
    urbanNumbered: 50,
    rural: 90,
    motorway: 120,
    urbanMotorway: 80,
    livingStreet: 20,
  },
  FI: { unit: 'kmh', urban: 50, rural: 100, motorway: 100, livingStreet: 20 },
  FR: {
    unit: 'kmh',
    urban: 50,
    rural: 80,
    ruralDualCarriageway: 110,
    ruralMultiLane: 90,
    motorway: 130,
    livingStreet: 20,
  },
  GB: { unit: 'mph', urban: 30, rural: 60, ruralDualCarriageway: 70, motorway: 70 },
  GR: { unit: 'kmh', urban: 50, rural: 90, motorroad: 110, motorway: 130 },
  HR: { unit: 'kmh', urban: 50, rural: 90, motorroad: 110, motorway: 130, livingStreet: 'walk' },
  HU: { unit: 'kmh', urban: 50, rural: 90, motorroad: 110, motorway: 130, livingStreet: 20 },
  IE: { unit: 'kmh', urban: 50, rural: 80, motorway: 120, refPrefixes: [['N', 100]] },
  IT: { unit: 'kmh', urban: 50, rural: 90, ruralDualCarriageway: 110, motorway: 130 },
  LI: { unit: 'kmh', urban: 50, rural: 80, motorway: 80 },
  LT: { unit: 'kmh', urban: 50, rural: 90, motorroad: 120, motorway: 130, livingStreet: 20 },
  LU: { unit: 'kmh', urban: 50, rural: 90, motorway: 130, livingStreet: 20 },
  LV: { unit: 'kmh', urban: 50, rural: 90, motorroad: 110, motorway: 110, livingStreet: 20 },
  MC: { unit: 'kmh', urban: 50, rural: 50, motorway: 50 },
  NL: { unit: 'kmh', urban: 50, rural: 80, motorroad: 100, motorway: 130, livingStreet: 15 },
  NO: { unit: 'kmh', urban: 50, rural: 80, motorway: 110, livingStreet: 'walk' },
  PL: {
    unit: 'kmh',
    urban: 50,
    rural: 90,
    ruralDualCarriageway: 100,
    ruralDualCarriagewayMinLanes: 2,
    motorroad: 120,
    motorroadSingleCarriageway: 100,
    motorway: 140,
    livingStreet: 20,
  },
  PT: { unit: 'kmh', urban: 50, rural: 90, motorroad: 100, motorway: 120, livingStreet: 20 },
  RO: { unit: 'kmh', urban: 50, rural: 90, motorway: 130, livingStreet: 20, refPrefixes: [['DN', 100]] },
  RU: { unit: 'kmh', urban: 60, rural: 90, motorway: 110, livingStreet: 20 },
  SE: { unit: 'kmh', urban: 50, rural: 70, motorway: 110, livingStreet: 'walk' },
  SI: { unit: 'kmh', urban: 50, rural: 90, ruralDualCarriageway: 110, motorway: 130, livingStreet: 10 },
  SK: { unit: 'kmh', urban: 50, rural: 90, motorroad: 130, motorway: 130, livingStreet: 20 },
  UA: { unit: 'kmh', urban: 50, rural: 90, ruralDualCarriageway: 110, motorway: 130, livingStreet: 20 },
};

/** Walking pace in km/h, for `maxspeed=walk` and "Schrittgeschwindigkeit" living streets (courts accept 4-10). */
export const WALK_KMH = 7;

export const MPH_TO_KMH = 1.609344;
