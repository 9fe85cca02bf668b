import type { SpeedLimit } from '../graph/graph-builder.ts';
import { type CountrySpeedDefaults, DEFAULT_SPEED_TABLE, MPH_TO_KMH, WALK_KMH } from './default-speed-table.ts';
import type { Maxspeed } from './maxspeed.ts';

/** What the default-limit rules look at. */
export interface RoadContext {
  highway: string;
  urban: boolean;
  /** The road carries traffic in one direction only (a carriageway of a dual carriageway, a one-way street). */
  oneway: boolean;
  /**
   * One carriageway of a road whose directions are separated: one-way, not a roundabout, not tagged
   * `dual_carriageway=no` (the OSM wiki's "dual carriageway" road type). A roundabout is one-way but has no
   * separated directions: France's 110 km/h applies to "routes à deux chaussées séparées par un terre-plein
   * central" (Code de la route R413-2), not to the ring of a roundabout on a rural primary road.
   */
  dualCarriageway: boolean;
  /**
   * A roundabout or other circular junction (`junction=roundabout|circular`). It is a junction, not a stretch of
   * road: it never gets a motorway, dual-carriageway or multi-lane default, whatever its class (a ring tagged
   * `motorway_link` where slip roads meet local roads got France's 130 km/h).
   */
  roundabout: boolean;
  /** Total lanes as tagged (both directions unless `oneway`). */
  lanes: number | null;
  /**
   * Lanes in the direction of travel the limit is for, when tagged for it (`lanes:forward`, `lanes:backward`).
   * Otherwise `lanes` is taken for a one-way road and half of it for a two-way road.
   */
  directionLanes?: number | null;
  ref: string | null;
  motorroad: boolean;
}

const UNKNOWN: SpeedLimit = { kmh: null, source: 'unknown' };

function toKmh(value: number | 'none' | 'walk', table: CountrySpeedDefaults, source: SpeedLimit['source']): SpeedLimit {
  if (value === 'none') return { kmh: null, source, unlimited: true };
  if (value === 'walk') return { kmh: WALK_KMH, source };
  return { kmh: table.unit === 'mph' ? value * MPH_TO_KMH : value, source };
}

/** Lanes in the direction of travel, when the tagging says. */
function lanesPerDirection(ctx: RoadContext): number | null {
  if (ctx.directionLanes !== undefined && ctx.directionLanes !== null) return ctx.directionLanes;
  if (ctx.lanes === null) return null;
  return ctx.oneway ? ctx.lanes : ctx.lanes / 2;
}

/** The value a country's defaults give for a road, before unit conversion. */
function pickDefault(table: CountrySpeedDefaults, ctx: RoadContext): number | 'none' | 'walk' {
  const { highway } = ctx;
  if (highway === 'living_street') return table.livingStreet ?? table.urban;
  if ((highway === 'motorway' || highway === 'motorway_link') && !ctx.roundabout) {
    return ctx.urban && table.urbanMotorway !== undefined ? table.urbanMotorway : table.motorway;
  }
  if (ctx.motorroad && table.motorroad !== undefined) {
    if (ctx.urban && table.urbanMotorroad !== undefined) return table.urbanMotorroad;
    if (!ctx.urban && !ctx.dualCarriageway && table.motorroadSingleCarriageway !== undefined) {
      return table.motorroadSingleCarriageway;
    }
    return table.motorroad;
  }
  if (ctx.urban) {
    const perDirection = lanesPerDirection(ctx);
    if (table.urbanMultiLane !== undefined && perDirection !== null && perDirection >= 2) return table.urbanMultiLane;
    if (table.urbanNumbered !== undefined && ctx.ref) return table.urbanNumbered;
    return table.urban;
  }
  if (ctx.ref && table.refPrefixes) {
    const ref = ctx.ref.toUpperCase().replace(/\s+/g, '');
    for (const [prefix, limit] of table.refPrefixes) if (ref.startsWith(prefix)) return limit;
  }
  if (ctx.roundabout) return table.rural;
  const perDirection = lanesPerDirection(ctx);
  const majorRoad = /^(trunk|primary)(_link)?$/.test(highway);
  const minLanes = table.ruralDualCarriagewayMinLanes;
  if (
    majorRoad &&
    ctx.dualCarriageway &&
    table.ruralDualCarriageway !== undefined &&
    (minLanes === undefined || (perDirection !== null && perDirection >= minLanes))
  ) {
    return table.ruralDualCarriageway;
  }
  if (table.ruralMultiLane !== undefined && perDirection !== null && perDirection >= 2) return table.ruralMultiLane;
  return table.rural;
}

/** The legal default limit for a road in a country, or an unknown limit when the country is not in the table. */
export function defaultSpeedLimit(country: string | null, ctx: RoadContext): SpeedLimit {
  const table = country ? DEFAULT_SPEED_TABLE[country] : undefined;
  if (!table) return UNKNOWN;
  return toKmh(pickDefault(table, ctx), table, 'default');
}

/**
 * Resolves a zone code such as `FR:urban`, `DE:rural`, `DE:motorway`, `GB:nsl_dual`, `RU:living_street` to a
 * limit, using the code's own country. Returns null for zones the table cannot resolve.
 */
export function zoneSpeedLimit(zone: { country: string; zone: string }, ctx: RoadContext): SpeedLimit | null {
  const table = DEFAULT_SPEED_TABLE[zone.country];
  if (!table) return null;
  const z = zone.zone.replace(/^zone_?/, '');
  const as = (overrides: Partial<RoadContext>) =>
    toKmh(pickDefault(table, { ...ctx, ...overrides }), table, 'explicit');
  switch (z) {
    case 'urban':
    case 'built_up':
      return as({ urban: true });
    case 'rural':
      return as({ urban: false, highway: ctx.highway.startsWith('motorway') ? 'primary' : ctx.highway });
    case 'motorway':
      return as({ highway: 'motorway', urban: false, roundabout: false });
    case 'motorroad':
    case 'expressway':
      return as({ motorroad: true, urban: false, highway: 'trunk' });
    case 'trunk':
    case 'dual_carriageway':
    case 'nsl_dual':
      return as({ urban: false, oneway: true, dualCarriageway: true, roundabout: false, highway: 'trunk' });
    case 'nsl_single':
      return toKmh(table.rural, table, 'explicit');
    case 'nsl_restricted':
      return toKmh(table.urban, table, 'explicit');
    case 'living_street':
    case 'pedestrian':
      return as({ highway: 'living_street' });
    default:
      return null;
  }
}

/** Which zone code marks a road as inside or outside a built-up area, or null when it says nothing. */
export function urbanFromZone(value: Maxspeed | null): boolean | null {
  if (value?.kind !== 'zone') return null;
  if (/urban|built_up|living_street|nsl_restricted/.test(value.zone)) return true;
  if (/rural|motorway|motorroad|nsl_single|nsl_dual|trunk/.test(value.zone)) return false;
  return null;
}
