import { basename } from 'node:path';
import { metresPerDegree } from '../geo.ts';
import { buildGraph, type NetworkSegment, type NetworkWay, type SpeedLimit } from '../graph/graph-builder.ts';
import type { RoadGraph } from '../graph/road-graph.ts';
import { countryAt } from '../speed/country-bbox.ts';
import { defaultSpeedLimit, type RoadContext, urbanFromZone, zoneSpeedLimit } from '../speed/default-speed-limit.ts';
import { WALK_KMH } from '../speed/default-speed-table.ts';
import { type Maxspeed, parseMaxspeed } from '../speed/maxspeed.ts';
import type { ControlScope, NodeControl } from '../types.ts';
import { carHighway, isRoundabout, nodeControl, nodeControlScope, wayLanes, wayOneway } from './car-way.ts';
import { NodeStore } from './node-store.ts';
import { OsmInputError, type OsmTags, readOsm } from './osm-reader.ts';
import { PolygonSet } from './polygon-set.ts';
import { URBAN_LANDUSE, UrbanAreas } from './urban-areas.ts';

export interface OsmBuildOptions {
  /**
   * ISO 3166-1 alpha-2 code whose default limits apply to every road. Without it each road takes the country
   * whose bounding box (smallest first) contains it, see `COUNTRY_BBOXES`.
   */
  country?: string;
  /** Reading progress: compressed bytes read and file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

interface HighwayWay {
  id: number;
  refs: number[];
  tags: OsmTags;
  highway: string;
}

interface AreaRelation {
  outer: number[];
  inner: number[];
}

const ZONE_KEYS = ['source:maxspeed', 'maxspeed:type', 'zone:maxspeed', 'zone:traffic'] as const;

function isUrbanArea(tags: OsmTags | undefined): boolean {
  return tags !== undefined && tags.landuse !== undefined && URBAN_LANDUSE.has(tags.landuse);
}

/** ISO code of a national boundary relation (`boundary=administrative`, `admin_level=2`), or null. */
function nationalBoundaryCode(tags: OsmTags): string | null {
  if (tags.boundary !== 'administrative' || tags.admin_level !== '2') return null;
  const code = (tags['ISO3166-1:alpha2'] ?? tags['ISO3166-1'] ?? tags.country_code ?? '').toUpperCase();
  return /^[A-Z]{2}$/.test(code) ? code : null;
}

/** Joins ways end to end (at either end) into chains; a chain whose ends meet is a closed ring. */
function assembleChains(parts: number[][]): number[][] {
  const chains: number[][] = [];
  const open = parts.filter((p) => p.length >= 2).map((p) => [...p]);
  while (open.length > 0) {
    const chain = open.pop()!;
    let progress = true;
    while (chain[0] !== chain[chain.length - 1] && progress) {
      progress = false;
      for (let i = 0; i < open.length; i++) {
        const part = open[i]!;
        const first = chain[0];
        const last = chain[chain.length - 1];
        if (part[0] === last) chain.push(...part.slice(1));
        else if (part[part.length - 1] === last) chain.push(...part.slice(0, -1).reverse());
        else if (part[part.length - 1] === first) chain.unshift(...part.slice(0, -1));
        else if (part[0] === first) chain.unshift(...part.slice(1).reverse());
        else continue;
        open.splice(i, 1);
        progress = true;
        break;
      }
    }
    chains.push(chain);
  }
  return chains;
}

const isClosed = (chain: number[]) => chain.length >= 4 && chain[0] === chain[chain.length - 1];

/**
 * Builds the car road graph from an OpenStreetMap file (`.osm.pbf`, `.osm` or `.osm.gz`): drivable ways split at
 * junctions and controlled nodes into directed edges, with explicit or default speed limits.
 */
export async function buildGraphFromOsm(file: string, options: OsmBuildOptions = {}): Promise<RoadGraph> {
  const override = options.country?.toUpperCase();
  if (override !== undefined && !/^[A-Z]{2}$/.test(override)) {
    throw new Error(`country must be an ISO 3166-1 alpha-2 code such as FR, got "${options.country}"`);
  }
  const nodes = new NodeStore();
  const controls = new Map<number, NodeControl>();
  const controlScopes = new Map<number, ControlScope>();
  const places: Array<{ id: number; place: string }> = [];
  const highways: HighwayWay[] = [];
  const areaWays: number[][] = [];
  const memberCandidates = new Map<number, number[]>();
  const areaRelations: AreaRelation[] = [];
  const countryRelations: Array<AreaRelation & { code: string }> = [];
  let osmWays = 0;

  const { format, elements } = await readOsm(
    file,
    (el) => {
      if (el.type === 'node') {
        nodes.push(el.id, el.lon, el.lat);
        if (el.tags) {
          const control = nodeControl(el.tags);
          if (control) {
            controls.set(el.id, control);
            const scope = nodeControlScope(el.tags);
            if (scope) controlScopes.set(el.id, scope);
          }
          if (el.tags.place) places.push({ id: el.id, place: el.tags.place });
        }
      } else if (el.type === 'way') {
        osmWays++;
        const highway = carHighway(el.tags);
        if (highway && el.tags) highways.push({ id: el.id, refs: el.refs, tags: el.tags, highway });
        else if (isUrbanArea(el.tags) && el.refs.length >= 4 && el.refs[0] === el.refs[el.refs.length - 1]) {
          areaWays.push(el.refs);
        } else {
          // Relations come after ways, so any way may turn out to be part of a boundary or landuse polygon.
          memberCandidates.set(el.id, el.refs);
        }
      } else if (el.type === 'relation' && el.tags) {
        const outer = el.members.filter((m) => m.type === 'way' && m.role !== 'inner').map((m) => m.ref);
        const inner = el.members.filter((m) => m.type === 'way' && m.role === 'inner').map((m) => m.ref);
        const code = nationalBoundaryCode(el.tags);
        if (code) countryRelations.push({ outer, inner, code });
        else if (el.tags.type === 'multipolygon' && isUrbanArea(el.tags)) areaRelations.push({ outer, inner });
      }
    },
    { onProgress: options.onProgress },
  );
  nodes.finish();
  if (highways.length === 0) {
    throw new OsmInputError(`${file}: no drivable roads (${elements} OSM elements, none a car highway)`);
  }

  const coords = (refs: number[]): Array<[number, number]> => {
    const out: Array<[number, number]> = [];
    for (const ref of refs) {
      const i = nodes.indexOf(ref);
      if (i >= 0) out.push([nodes.lon[i]!, nodes.lat[i]!]);
    }
    return out;
  };

  // Resolve node references; a way crossing the extract boundary is cut where its nodes are missing.
  const pieces: Array<{ way: number; nodes: number[] }> = [];
  const ways: NetworkWay[] = [];
  const usage = new Uint8Array(nodes.length);
  highways.forEach((w) => {
    const wayIndex = ways.length;
    let current: number[] = [];
    const flush = () => {
      if (current.length >= 2) pieces.push({ way: wayIndex, nodes: current });
      current = [];
    };
    for (const ref of w.refs) {
      const i = nodes.indexOf(ref);
      if (i < 0) flush();
      else if (current[current.length - 1] !== i) current.push(i);
    }
    flush();
    ways.push({
      wayId: w.id,
      highway: w.highway,
      name: w.tags.name ?? null,
      ref: w.tags.ref ?? null,
      lanes: wayLanes(w.tags),
      surface: w.tags.surface ?? null,
    });
  });
  for (const piece of pieces) {
    piece.nodes.forEach((n, j) => {
      // Interior nodes count twice: a node is a junction when roads meet there from three or more directions.
      const add = j === 0 || j === piece.nodes.length - 1 ? 1 : 2;
      usage[n] = Math.min(255, usage[n]! + add);
    });
  }
  const wayRefCount = new Uint8Array(nodes.length);
  for (const piece of pieces) for (const n of piece.nodes) wayRefCount[n] = Math.min(255, wayRefCount[n]! + 1);
  const controlAt = new Map<number, NodeControl>();
  const scopeAt = new Map<number, ControlScope>();
  for (const [id, control] of controls) {
    const i = nodes.indexOf(id);
    if (i >= 0 && wayRefCount[i]! > 0) {
      controlAt.set(i, control);
      const scope = controlScopes.get(id);
      if (scope) scopeAt.set(i, scope);
    }
  }

  // Cut pieces into segments at shared nodes and controlled nodes.
  const rawSegments: Array<{ way: number; nodes: number[] }> = [];
  for (const piece of pieces) {
    let start = 0;
    for (let j = 1; j < piece.nodes.length; j++) {
      const n = piece.nodes[j]!;
      if (j === piece.nodes.length - 1 || wayRefCount[n]! > 1 || controlAt.has(n)) {
        rawSegments.push({ way: piece.way, nodes: piece.nodes.slice(start, j + 1) });
        start = j;
      }
    }
  }

  // Urban areas: landuse polygons, place nodes, then junction density.
  let latSum = 0;
  for (const s of rawSegments) latSum += nodes.lat[s.nodes[0]!]!;
  const referenceLat = latSum / rawSegments.length;
  const chainsOf = (ids: number[]) =>
    assembleChains(ids.flatMap((id) => (memberCandidates.has(id) ? [memberCandidates.get(id)!] : [])));
  const ringsOf = (relation: AreaRelation) =>
    [...chainsOf(relation.outer), ...chainsOf(relation.inner)].filter(isClosed).map(coords);
  const urban = new UrbanAreas();
  for (const refs of areaWays) urban.addPolygon([coords(refs)]);
  for (const relation of areaRelations) urban.addPolygon(ringsOf(relation));
  // National boundaries the extract holds completely decide the country exactly. Clipped ones (cut at the
  // extract's edge or at sea) do not close and are skipped: closing them by guesswork could not tell which side
  // of a shared border belongs to which country.
  const borders = new PolygonSet<string>();
  for (const relation of countryRelations) borders.add(ringsOf(relation), relation.code);
  borders.finish();
  for (const p of places) {
    const i = nodes.indexOf(p.id);
    if (i >= 0) urban.addPlace(nodes.lon[i]!, nodes.lat[i]!, p.place);
  }
  for (let n = 0; n < nodes.length; n++) if (usage[n]! >= 3) urban.addJunction(nodes.lon[n]!, nodes.lat[n]!);
  urban.finish(referenceLat);

  const { kx, ky } = metresPerDegree(referenceLat);
  const midpoint = (seg: number[]): [number, number] => {
    let total = 0;
    for (let j = 1; j < seg.length; j++) {
      total += Math.hypot(
        (nodes.lon[seg[j]!]! - nodes.lon[seg[j - 1]!]!) * kx,
        (nodes.lat[seg[j]!]! - nodes.lat[seg[j - 1]!]!) * ky,
      );
    }
    let remaining = total / 2;
    for (let j = 1; j < seg.length; j++) {
      const a = seg[j - 1]!;
      const b = seg[j]!;
      const d = Math.hypot((nodes.lon[b]! - nodes.lon[a]!) * kx, (nodes.lat[b]! - nodes.lat[a]!) * ky);
      if (d >= remaining && d > 0) {
        const t = remaining / d;
        return [
          nodes.lon[a]! + (nodes.lon[b]! - nodes.lon[a]!) * t,
          nodes.lat[a]! + (nodes.lat[b]! - nodes.lat[a]!) * t,
        ];
      }
      remaining -= d;
    }
    return [nodes.lon[seg[0]!]!, nodes.lat[seg[0]!]!];
  };

  let urbanByLanduse = 0;
  let urbanByPlace = 0;
  let urbanByDensity = 0;
  let urbanByTag = 0;
  const segments: NetworkSegment[] = rawSegments.map((raw) => {
    const w = highways[raw.way]!;
    const tags = w.tags;
    const [lon, lat] = midpoint(raw.nodes);
    const zones = ZONE_KEYS.map((k) => parseMaxspeed(tags[k])).filter((z): z is Maxspeed => z?.kind === 'zone');
    const tagged = zones.map(urbanFromZone).find((u) => u !== null) ?? urbanFromZone(parseMaxspeed(tags.maxspeed));
    let isUrban: boolean;
    if (tagged !== null && tagged !== undefined) {
      isUrban = tagged;
      urbanByTag++;
    } else {
      const why = urban.classify(lon, lat);
      isUrban = why !== null;
      if (why === 'landuse') urbanByLanduse++;
      else if (why === 'place') urbanByPlace++;
      else if (why === 'density') urbanByDensity++;
    }
    const country = override ?? borders.find(lon, lat) ?? countryAt(lon, lat);
    const oneway = wayOneway(tags);
    const roundabout = isRoundabout(tags);
    const ctx: RoadContext = {
      highway: w.highway,
      urban: isUrban,
      oneway: oneway !== 'both',
      dualCarriageway: oneway !== 'both' && !roundabout && tags.dual_carriageway !== 'no',
      roundabout,
      lanes: wayLanes(tags),
      ref: tags.ref ?? null,
      motorroad: tags.motorroad === 'yes',
    };
    // Each direction's limit sees the lanes tagged for it: France's 90 km/h is per direction of travel.
    const forwardCtx: RoadContext = { ...ctx, directionLanes: wayLanes(tags, 'forward') };
    const backwardCtx: RoadContext = { ...ctx, directionLanes: wayLanes(tags, 'backward') };
    const fallback = (road: RoadContext): SpeedLimit => {
      for (const zone of zones) {
        if (zone.kind === 'zone') {
          const limit = zoneSpeedLimit(zone, road);
          if (limit) return limit;
        }
      }
      return defaultSpeedLimit(country, road);
    };
    const resolve = (value: string | undefined, road: RoadContext): SpeedLimit => {
      const parsed = parseMaxspeed(value);
      if (!parsed || parsed.kind === 'variable') return fallback(road);
      if (parsed.kind === 'speed') return { kmh: parsed.kmh, source: 'explicit' };
      if (parsed.kind === 'none') return { kmh: null, source: 'explicit', unlimited: true };
      if (parsed.kind === 'walk') return { kmh: WALK_KMH, source: 'explicit' };
      return zoneSpeedLimit(parsed, road) ?? fallback(road);
    };
    return {
      way: raw.way,
      nodes: raw.nodes,
      forward: oneway !== 'backward',
      backward: oneway !== 'forward',
      forwardLimit: resolve(tags['maxspeed:forward'] ?? tags.maxspeed, forwardCtx),
      backwardLimit: resolve(tags['maxspeed:backward'] ?? tags.maxspeed, backwardCtx),
      urban: isUrban,
      roundabout,
      country,
    };
  });

  return buildGraph({
    nodes: {
      lon: nodes.lon,
      lat: nodes.lat,
      id: nodes.ids,
      control: (i: number) => controlAt.get(i) ?? null,
      controlScope: (i: number) => scopeAt.get(i) ?? null,
    },
    ways,
    segments,
    source: basename(file),
    ...(override ? { country: override } : {}),
    stats: {
      osmElements: elements,
      osmWays,
      highwayWays: highways.length,
      urbanPolygons: urban.polygonCount,
      places: urban.placeCount,
      nationalBoundaries: borders.size,
      urbanSegmentsByTag: urbanByTag,
      urbanSegmentsByLanduse: urbanByLanduse,
      urbanSegmentsByPlace: urbanByPlace,
      urbanSegmentsByDensity: urbanByDensity,
      pbf: format === 'pbf' ? 1 : 0,
    },
  });
}
