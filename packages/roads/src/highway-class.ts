/**
 * The OSM `highway` values a car may drive on, in order of importance. The index is what the graph file
 * stores, so new classes may only be appended (and the graph file version bumped).
 */
export const HIGHWAY_CLASSES = [
  'motorway',
  'motorway_link',
  'trunk',
  'trunk_link',
  'primary',
  'primary_link',
  'secondary',
  'secondary_link',
  'tertiary',
  'tertiary_link',
  'unclassified',
  'residential',
  'living_street',
  'service',
  'road',
] as const;

export type HighwayClass = (typeof HIGHWAY_CLASSES)[number];

const CLASS_INDEX = new Map<string, number>(HIGHWAY_CLASSES.map((name, index) => [name, index]));

/** Index of a drivable highway class, or -1 when cars cannot use it. */
export function highwayClassIndex(highway: string): number {
  return CLASS_INDEX.get(highway) ?? -1;
}

/** True for `highway` values that belong to the car graph. */
export function isDrivableHighway(highway: string): highway is HighwayClass {
  return CLASS_INDEX.has(highway);
}

/**
 * Typical free-flow speeds (km/h) by class, used only to rank routes by time when a limit is unknown and to
 * bound the A* heuristic; never reported as a speed limit.
 */
export const TYPICAL_SPEED_KMH: Record<HighwayClass, number> = {
  motorway: 110,
  motorway_link: 60,
  trunk: 90,
  trunk_link: 50,
  primary: 65,
  primary_link: 45,
  secondary: 55,
  secondary_link: 40,
  tertiary: 45,
  tertiary_link: 35,
  unclassified: 40,
  residential: 30,
  living_street: 10,
  service: 15,
  road: 30,
};
