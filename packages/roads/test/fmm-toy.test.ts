import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as shapefile from 'shapefile';
import { describe, expect, it } from 'vitest';
import { buildGraph, matchTrace, type NetworkSegment, type NetworkWay, type RoadGraph } from '../src/index.ts';

const TOY = fileURLToPath(new URL('../../../../shared/data/fmm-toy/', import.meta.url));
const available = existsSync(`${TOY}edges.shp`);

/** Metres per degree at the equator: the toy's planar units become degrees near (0, 0). */
const UNIT_M = 111_320;

async function loadToyGraph(): Promise<RoadGraph> {
  const source = await shapefile.open(`${TOY}edges.shp`, `${TOY}edges.dbf`);
  const lon: number[] = [];
  const lat: number[] = [];
  const nodeIndex = new Map<string, number>();
  const nodeOf = (id: string, [x, y]: number[]) => {
    let index = nodeIndex.get(id);
    if (index === undefined) {
      index = lon.length;
      nodeIndex.set(id, index);
      lon.push(x!);
      lat.push(y!);
    }
    return index;
  };
  const ways: NetworkWay[] = [];
  const segments: NetworkSegment[] = [];
  for (let r = await source.read(); !r.done; r = await source.read()) {
    const { properties, geometry } = r.value as unknown as {
      properties: { id: string; source: string; target: string };
      geometry: { coordinates: number[][] };
    };
    const coords = geometry.coordinates;
    const nodes = [nodeOf(properties.source, coords[0]!)];
    for (const c of coords.slice(1, -1)) {
      lon.push(c[0]!);
      lat.push(c[1]!);
      nodes.push(lon.length - 1);
    }
    nodes.push(nodeOf(properties.target, coords[coords.length - 1]!));
    // Every shapefile edge is one direction of travel, identified by its id.
    ways.push({ wayId: Number(properties.id), highway: 'residential' });
    segments.push({
      way: ways.length - 1,
      nodes,
      forward: true,
      backward: false,
      forwardLimit: { kmh: null, source: 'unknown' },
      backwardLimit: { kmh: null, source: 'unknown' },
      urban: true,
    });
  }
  return buildGraph({ nodes: { lon, lat }, ways, segments, source: 'fmm-toy edges.shp', country: null });
}

function readTrips(): Map<number, Array<{ lon: number; lat: number }>> {
  const trips = new Map<number, Array<{ lon: number; lat: number }>>();
  for (const line of readFileSync(`${TOY}trips.csv`, 'utf8').split(/\r?\n/).slice(1)) {
    const match = /^(\d+);LINESTRING\((.*)\)$/.exec(line.trim());
    if (!match) continue;
    const points = match[2]!.split(',').map((pair) => {
      const [x, y] = pair.trim().split(/\s+/).map(Number);
      return { lon: x!, lat: y! };
    });
    trips.set(Number(match[1]), points);
  }
  return trips;
}

function readExpected(): Map<number, number[]> {
  const expected = new Map<number, number[]>();
  for (const line of readFileSync(`${TOY}mr.txt`, 'utf8').split(/\r?\n/).slice(1)) {
    const [id, cpath] = line.split(';');
    if (id && cpath) expected.set(Number(id), cpath.split(',').map(Number));
  }
  return expected;
}

describe.skipIf(!available)('FMM toy network (../shared/data/fmm-toy; skipped when absent)', () => {
  it('matches the three trajectories to exactly the paths FMM publishes in mr.txt', async () => {
    const graph = await loadToyGraph();
    const trips = readTrips();
    const expected = readExpected();
    expect(trips.size).toBe(3);
    for (const [id, points] of trips) {
      // FMM's example runs with gps_error 0.5 and radius 0.4 in the toy's planar units.
      const result = matchTrace(graph, points, {
        sigmaM: 0.5 * UNIT_M,
        radiusM: 0.4 * UNIT_M,
        betaM: 0.5 * UNIT_M,
        maxRouteDistanceM: 20 * UNIT_M,
        useReportedAccuracy: false,
        // FMM decodes every fix; so do we here.
        minSpacingSigmas: 0,
      });
      const wayIds = result.path.map((s) => s.wayId).filter((w, i, all) => i === 0 || all[i - 1] !== w);
      expect({ id, path: wayIds }).toEqual({ id, path: expected.get(id) });
      expect(result.matchedShare).toBe(1);
    }
  });
});
