import { metresPerDegree } from '../geo.ts';
import { buildGraph, type NetworkSegment, type NetworkWay, type SpeedLimit } from '../graph/graph-builder.ts';
import type { RoadGraph } from '../graph/road-graph.ts';
import { defaultSpeedLimit } from '../speed/default-speed-limit.ts';
import type { LonLat, NodeControl } from '../types.ts';

export interface CityOptions {
  /** Same seed, same city (byte for byte in the graph file, apart from the build time). */
  seed: number;
  /** Blocks along each side of the street grid (default 12, min 4, at most 400). */
  blocks?: number;
  /** Block edge length, metres (default 160, 20 to 2000). */
  blockM?: number;
  /** Centre of the city, [lon, lat] (default [4.5, 45.5], open country in France). */
  center?: LonLat;
  /** Country whose default limits apply (default FR). */
  country?: string;
}

/** Small deterministic PRNG (mulberry32): the generator must not depend on Math.random. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STREET_WORDS = [
  'Oak',
  'Maple',
  'Cedar',
  'Elm',
  'Willow',
  'Birch',
  'Chestnut',
  'Linden',
  'Poplar',
  'Aspen',
  'Hawthorn',
  'Juniper',
  'Rowan',
  'Alder',
  'Hazel',
  'Laurel',
  'Magnolia',
  'Cypress',
  'Walnut',
  'Spruce',
  'Holly',
  'Myrtle',
  'Acacia',
  'Olive',
  'Mill',
  'Church',
  'Market',
  'Station',
  'Bridge',
  'River',
  'Garden',
  'School',
  'Castle',
  'Harbour',
  'Meadow',
  'Orchard',
];

interface Builder {
  lon: number[];
  lat: number[];
  control: Array<NodeControl | null>;
  ways: NetworkWay[];
  segments: NetworkSegment[];
}

/** Bounds of a generated city: a grid of N blocks has about N^2 nodes. */
const MIN_BLOCKS = 4;
const MAX_BLOCKS = 400;
const MIN_BLOCK_M = 20;
const MAX_BLOCK_M = 2_000;

/**
 * Generates a plausible small city, deterministic for a seed: a jittered street grid with named residential,
 * tertiary and arterial streets (some one-way, some 30 km/h zones, a few living streets), signals and stop signs,
 * a ring road with roundabouts where the arterials meet it, and a motorway with a diamond interchange.
 */
export function generateCity(options: CityOptions): RoadGraph {
  const { seed } = options;
  if (!Number.isInteger(seed)) throw new RangeError(`generateCity: seed must be an integer, got ${seed}`);
  const blocks = options.blocks ?? 12;
  const blockM = options.blockM ?? 160;
  // 5,000 blocks ran out of memory, blocks of 10^9 m put nodes beyond +-180 degrees, and micrometre blocks made
  // every road a point.
  // Fewer than 4 blocks leave no room for the ring road and the interchange: refused like too many, rather than
  // raised without a word.
  if (!(Number.isInteger(blocks) && blocks >= MIN_BLOCKS && blocks <= MAX_BLOCKS)) {
    throw new RangeError(
      `generateCity: blocks must be a whole number from ${MIN_BLOCKS} to ${MAX_BLOCKS}, got ${blocks}`,
    );
  }
  if (!(blockM >= MIN_BLOCK_M && blockM <= MAX_BLOCK_M)) {
    throw new RangeError(`generateCity: blockM must be from ${MIN_BLOCK_M} to ${MAX_BLOCK_M} metres, got ${blockM}`);
  }
  const [cLon, cLat] = options.center ?? [4.5, 45.5];
  const country = options.country ?? 'FR';
  const random = mulberry32(seed);
  const { kx, ky } = metresPerDegree(cLat);
  const b: Builder = { lon: [], lat: [], control: [], ways: [], segments: [] };
  let nextWayId = 1;

  const node = (xM: number, yM: number, control: NodeControl | null = null): number => {
    b.lon.push(cLon + xM / kx);
    b.lat.push(cLat + yM / ky);
    b.control.push(control);
    return b.lon.length - 1;
  };
  const way = (highway: string, name: string | null, extra: Partial<NetworkWay> = {}): number => {
    b.ways.push({ wayId: nextWayId++, highway, name, ...extra });
    return b.ways.length - 1;
  };
  const limitFor = (
    highway: string,
    urban: boolean,
    oneway: boolean,
    roundabout: boolean,
    explicitKmh?: number,
  ): SpeedLimit =>
    explicitKmh !== undefined
      ? { kmh: explicitKmh, source: 'explicit' }
      : defaultSpeedLimit(country, {
          highway,
          urban,
          oneway,
          dualCarriageway: oneway && !roundabout,
          roundabout,
          lanes: null,
          ref: null,
          motorroad: false,
        });
  const segment = (
    w: number,
    nodes: number[],
    opts: { oneway?: 'forward' | 'backward'; urban: boolean; explicitKmh?: number; roundabout?: boolean },
  ) => {
    const highway = b.ways[w]!.highway;
    const limit = limitFor(highway, opts.urban, opts.oneway !== undefined, opts.roundabout === true, opts.explicitKmh);
    b.segments.push({
      way: w,
      nodes,
      forward: opts.oneway !== 'backward',
      backward: opts.oneway !== 'forward',
      forwardLimit: limit,
      backwardLimit: limit,
      urban: opts.urban,
      roundabout: opts.roundabout ?? false,
      country,
    });
  };

  // Street grid: lines 0..blocks in each direction. Every fourth line is an arterial, the middle ones tertiary.
  const half = (blocks * blockM) / 2;
  const isArterial = (i: number) => i % 4 === 0;
  const isTertiary = (i: number) => !isArterial(i) && i % 2 === 0;
  const grid: number[][] = [];
  const jitter = () => (random() - 0.5) * blockM * 0.1;
  for (let i = 0; i <= blocks; i++) {
    const row: number[] = [];
    for (let j = 0; j <= blocks; j++) {
      const arterialCross = isArterial(i) && isArterial(j);
      const edge = i === 0 || j === 0 || i === blocks || j === blocks;
      const x = -half + j * blockM + (edge || arterialCross ? 0 : jitter());
      const y = -half + i * blockM + (edge || arterialCross ? 0 : jitter());
      let control: NodeControl | null = null;
      if (arterialCross) control = 'signals';
      else if (isArterial(i) !== isArterial(j)) control = isTertiary(i) || isTertiary(j) ? 'signals' : 'stop';
      else if (random() < 0.15) control = 'give_way';
      row.push(node(x, y, control));
    }
    grid.push(row);
  }
  const names = [...STREET_WORDS].sort(() => random() - 0.5);
  const lineName = (k: number, horizontal: boolean, arterial: boolean) =>
    `${names[k % names.length]} ${arterial ? 'Boulevard' : horizontal ? 'Street' : 'Avenue'}`;
  let nameIndex = 0;
  for (const horizontal of [true, false]) {
    for (let i = 0; i <= blocks; i++) {
      const arterial = isArterial(i);
      const tertiary = isTertiary(i);
      const highway = arterial
        ? i === blocks / 2 || i === 0 || i === blocks
          ? 'primary'
          : 'secondary'
        : tertiary
          ? 'tertiary'
          : 'residential';
      const livingStreet = !arterial && !tertiary && random() < 0.1;
      const w = way(livingStreet ? 'living_street' : highway, lineName(nameIndex++, horizontal, arterial), {
        lanes: arterial ? 4 : tertiary ? 2 : null,
        surface: 'asphalt',
      });
      // One in three residential streets is one-way, alternating direction.
      const oneway =
        !arterial && !tertiary && !livingStreet && i % 3 === 1 ? (i % 2 === 0 ? 'forward' : 'backward') : undefined;
      const zone30 = highway === 'residential' && !livingStreet && random() < 0.5;
      for (let j = 0; j < blocks; j++) {
        const a = horizontal ? grid[i]![j]! : grid[j]![i]!;
        const c = horizontal ? grid[i]![j + 1]! : grid[j + 1]![i]!;
        segment(w, [a, c], { oneway, urban: true, ...(zone30 ? { explicitKmh: 30 } : {}) });
      }
    }
  }

  // Ring road around the grid, with a roundabout where each central arterial meets it.
  const ringR = half * Math.SQRT2 + 250;
  const roundaboutR = 22;
  const mid = blocks / 2;
  const ringWay = way('trunk', 'Ring Road', { ref: 'R1', lanes: 2, surface: 'asphalt' });
  const connectorWay = way('primary', lineName(nameIndex++, true, true), { lanes: 2, surface: 'asphalt' });
  const roundaboutWay = way('primary', null, { surface: 'asphalt' });
  interface Roundabout {
    cx: number;
    cy: number;
    vertices: number[];
    angles: number[];
  }
  const makeRoundabout = (cx: number, cy: number): Roundabout => {
    const angles = Array.from({ length: 8 }, (_, k) => (k * Math.PI) / 4);
    const vertices = angles.map((a) => node(cx + roundaboutR * Math.cos(a), cy + roundaboutR * Math.sin(a)));
    // Counter-clockwise, as in right-hand traffic.
    for (let k = 0; k < 8; k++) {
      segment(roundaboutWay, [vertices[k]!, vertices[(k + 1) % 8]!], {
        oneway: 'forward',
        urban: false,
        roundabout: true,
        explicitKmh: 30,
      });
    }
    return { cx, cy, vertices, angles };
  };
  const vertexToward = (r: Roundabout, angle: number) => {
    let best = 0;
    let bestDiff = Infinity;
    r.angles.forEach((a, k) => {
      const diff = Math.abs(Math.atan2(Math.sin(angle - a), Math.cos(angle - a)));
      if (diff < bestDiff) {
        bestDiff = diff;
        best = k;
      }
    });
    return r.vertices[best]!;
  };
  const directions = [0, Math.PI / 2, Math.PI, (3 * Math.PI) / 2]; // E, N, W, S
  const roundabouts = directions.map((a) => makeRoundabout(ringR * Math.cos(a), ringR * Math.sin(a)));
  // Arterials leave the grid at the middle of each side and run straight to the roundabout.
  const gridExits = [grid[mid]![blocks]!, grid[blocks]![mid]!, grid[mid]![0]!, grid[0]![mid]!];
  roundabouts.forEach((r, k) => {
    segment(connectorWay, [gridExits[k]!, vertexToward(r, directions[k]! + Math.PI)], { urban: false });
  });
  // Ring arcs between consecutive roundabouts.
  const arcPoints = 24;
  for (let k = 0; k < 4; k++) {
    const a0 = directions[k]!;
    const a1 = a0 + Math.PI / 2;
    const from = roundabouts[k]!;
    const to = roundabouts[(k + 1) % 4]!;
    const nodes: number[] = [vertexToward(from, a0 + Math.PI / 2)];
    const delta = (roundaboutR * 2) / ringR;
    for (let p = 0; p <= arcPoints; p++) {
      const a = a0 + delta + ((a1 - a0 - 2 * delta) * p) / arcPoints;
      nodes.push(node(ringR * Math.cos(a), ringR * Math.sin(a)));
    }
    nodes.push(vertexToward(to, a1 - Math.PI / 2));
    segment(ringWay, nodes, { urban: false, explicitKmh: 70 });
  }

  // Motorway east of the ring: two carriageways and a diamond interchange with a road from the east roundabout.
  const mx = ringR + 700;
  const span = ringR + 1200;
  const gap = 12;
  const rampY = 350;
  const motorwayNorth = way('motorway', null, { ref: 'A7', lanes: 2, surface: 'asphalt' });
  const motorwaySouth = way('motorway', null, { ref: 'A7', lanes: 2, surface: 'asphalt' });
  const linkWay = way('motorway_link', null, { lanes: 1, surface: 'asphalt' });
  const nb = [-span, -rampY, rampY, span].map((y) => node(mx + gap, y));
  const sb = [span, rampY, -rampY, -span].map((y) => node(mx - gap, y));
  for (let k = 0; k < 3; k++) {
    segment(motorwayNorth, [nb[k]!, nb[k + 1]!], { oneway: 'forward', urban: false });
    segment(motorwaySouth, [sb[k]!, sb[k + 1]!], { oneway: 'forward', urban: false });
  }
  const east = roundabouts[0]!;
  const westRampNode = node(mx - 60, 0, 'give_way');
  const eastRampNode = node(mx + 60, 0, 'give_way');
  const farEast = node(mx + 1500, 200);
  const interchangeWay = way('secondary', 'Interchange Road', { lanes: 2, surface: 'asphalt' });
  segment(interchangeWay, [vertexToward(east, 0), node(east.cx + 300, 0), westRampNode], { urban: false });
  segment(interchangeWay, [westRampNode, eastRampNode], { urban: false });
  segment(interchangeWay, [eastRampNode, node(mx + 700, 80), farEast], { urban: false });
  // Both ends of the motorway merge into a valley road that loops back through the interchange road, so every
  // edge can be reached from every other (no dead-end carriageway).
  const valleyWay = way('secondary', 'Route de la Vallée', { lanes: 2, surface: 'asphalt' });
  const northEnd = node(mx, span + 250);
  const southEnd = node(mx, -span - 250);
  segment(motorwayNorth, [nb[3]!, northEnd], { oneway: 'forward', urban: false });
  segment(motorwaySouth, [northEnd, sb[0]!], { oneway: 'forward', urban: false });
  segment(motorwaySouth, [sb[3]!, southEnd], { oneway: 'forward', urban: false });
  segment(motorwayNorth, [southEnd, nb[0]!], { oneway: 'forward', urban: false });
  segment(valleyWay, [northEnd, node(mx + 900, span + 200), node(mx + 1500, span - 300), farEast], { urban: false });
  segment(valleyWay, [farEast, node(mx + 1500, -span + 300), node(mx + 900, -span - 200), southEnd], { urban: false });
  const ramp = (points: Array<[number, number] | number>) =>
    segment(
      linkWay,
      points.map((p) => (typeof p === 'number' ? p : node(p[0], p[1]))),
      { oneway: 'forward', urban: false, explicitKmh: 70 },
    );
  ramp([nb[1]!, [mx + 45, -150], eastRampNode]); // northbound exit
  ramp([eastRampNode, [mx + 45, 150], nb[2]!]); // northbound entry
  ramp([sb[1]!, [mx - 45, 150], westRampNode]); // southbound exit
  ramp([westRampNode, [mx - 45, -150], sb[2]!]); // southbound entry

  return buildGraph({
    nodes: { lon: b.lon, lat: b.lat, control: b.control },
    ways: b.ways,
    segments: b.segments,
    source: `synthetic-city seed=${seed} blocks=${blocks}`,
    country,
  });
}
