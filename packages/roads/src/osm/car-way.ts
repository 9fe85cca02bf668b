import { isDrivableHighway } from '../highway-class.ts';
import type { ControlScope, NodeControl } from '../types.ts';
import type { OsmTags } from './osm-reader.ts';

/** Access values that close a road to private cars. */
const NO_CAR_ACCESS = new Set(['no', 'private', 'agricultural', 'forestry', 'emergency', 'psv', 'bus', 'military']);

/** Direction of travel allowed on a way, relative to its node order. */
export type Oneway = 'both' | 'forward' | 'backward';

/** The drivable highway class of a way, or null when cars may not use it. */
export function carHighway(tags: OsmTags | undefined): string | null {
  const highway = tags?.highway;
  if (!tags || !highway || !isDrivableHighway(highway)) return null;
  if (tags.area === 'yes') return null;
  if (tags.service === 'emergency_access') return null;
  // The most specific access key wins (motorcar > motor_vehicle > vehicle > access).
  const access = tags.motorcar ?? tags.motor_vehicle ?? tags.vehicle ?? tags.access;
  if (access !== undefined && NO_CAR_ACCESS.has(access)) return null;
  return highway;
}

/** True for roundabouts and other circular junctions. */
export function isRoundabout(tags: OsmTags): boolean {
  return tags.junction === 'roundabout' || tags.junction === 'circular';
}

/**
 * Allowed direction from `oneway` (`yes`/`true`/`1`, `-1`/`reverse`, `no`), else implied: roundabouts and
 * motorways are one-way. Reversible and alternating roads are treated as two-way (the direction at a given time
 * is not in the data, and a matcher must accept both).
 */
export function wayOneway(tags: OsmTags): Oneway {
  const oneway = tags['oneway:motor_vehicle'] ?? tags.oneway;
  switch (oneway) {
    case 'yes':
    case 'true':
    case '1':
      return 'forward';
    case '-1':
    case 'reverse':
      return 'backward';
    case 'no':
    case 'false':
    case '0':
    case 'reversible':
    case 'alternating':
      return 'both';
    default:
      return isRoundabout(tags) || tags.highway === 'motorway' ? 'forward' : 'both';
  }
}

/**
 * Lane count from `lanes`, or from `lanes:forward` / `lanes:backward` for one direction of the way; null when absent
 * or not a positive number.
 */
export function wayLanes(tags: OsmTags, direction?: 'forward' | 'backward'): number | null {
  const lanes = Number.parseInt((direction ? tags[`lanes:${direction}`] : tags.lanes) ?? '', 10);
  return Number.isFinite(lanes) && lanes > 0 ? lanes : null;
}

/**
 * Which traffic a node's control applies to, as its tags say: `direction=forward|backward` (for signals also
 * `traffic_signals:direction`) along or against the way the node is on, `stop=all` or `direction=both|all` every
 * approach; null when they do not say (the graph then decides, see RoadGraph.controlAhead).
 */
export function nodeControlScope(tags: OsmTags | undefined): ControlScope | null {
  if (!tags) return null;
  const direction = (
    (tags.highway === 'traffic_signals' ? tags['traffic_signals:direction'] : undefined) ??
    tags.direction ??
    ''
  ).toLowerCase();
  if (direction === 'forward') return 'forward';
  if (direction === 'backward') return 'backward';
  if (direction === 'both' || direction === 'all') return 'all';
  if (tags.highway === 'stop' && tags.stop === 'all') return 'all';
  return null;
}

/** The traffic control tagged on a node (`highway=traffic_signals|stop|give_way`), or null. */
export function nodeControl(tags: OsmTags | undefined): NodeControl | null {
  switch (tags?.highway) {
    case 'traffic_signals':
      return 'signals';
    case 'stop':
      return 'stop';
    case 'give_way':
      return 'give_way';
    default:
      return null;
  }
}
