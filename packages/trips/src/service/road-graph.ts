import { closeSync, existsSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Logger, makeFolders } from '@svc/platform';
import { buildGraphFromOsm, GRAPH_MAGIC, generateCity, writeGraph } from '@svc/roads';
import type { TripsConfig } from '../config.ts';

/**
 * The road graph file the service scores against: TRIPS_ROAD_GRAPH as given; else a graph built from
 * TRIPS_OSM_FILE (cached under DATA_DIR/roads, rebuilt when the extract is newer); else a synthetic city
 * with named streets, road classes and speed limits (generated once, in milliseconds).
 */
export async function ensureRoadGraph(
  config: Pick<TripsConfig, 'roadGraph' | 'osmFile' | 'citySeed' | 'dataDir'>,
  logger?: Logger,
): Promise<{ file: string; description: string }> {
  if (config.roadGraph) {
    const build = '(build one with npx trips roads build)';
    if (!existsSync(config.roadGraph)) {
      throw new Error(`TRIPS_ROAD_GRAPH ${config.roadGraph} does not exist ${build}`);
    }
    // A setting that names no graph is a mistake to fix now, not an engine that fails to start later
    // while the service runs on without scoring.
    if (statSync(config.roadGraph).isDirectory()) {
      throw new Error(`TRIPS_ROAD_GRAPH ${config.roadGraph} is a folder, not a road graph file ${build}`);
    }
    if (!startsWithGraphMagic(config.roadGraph)) {
      throw new Error(`TRIPS_ROAD_GRAPH ${config.roadGraph} is not a road graph file ${build}`);
    }
    return { file: config.roadGraph, description: `road graph ${config.roadGraph}` };
  }
  const dir = path.join(config.dataDir, 'roads');
  makeFolders(dir);
  if (config.osmFile) {
    if (!existsSync(config.osmFile)) throw new Error(`TRIPS_OSM_FILE ${config.osmFile} does not exist`);
    const name = path.basename(config.osmFile).replace(/\.(osm\.pbf|pbf|osm\.gz|osm)$/i, '');
    const file = path.join(dir, `${name}.graph`);
    if (!existsSync(file) || statSync(file).mtimeMs < statSync(config.osmFile).mtimeMs) {
      logger?.info({ osmFile: config.osmFile }, 'building the road graph from the OSM extract');
      const graph = await buildGraphFromOsm(config.osmFile);
      writeAtomically(file, (tmp) => writeGraph(graph, tmp));
    }
    return { file, description: `road graph of ${path.basename(config.osmFile)}` };
  }
  const file = path.join(dir, `synthetic-city-${config.citySeed}.graph`);
  if (!existsSync(file)) {
    writeAtomically(file, (tmp) => writeGraph(generateCity({ seed: config.citySeed }), tmp));
  }
  return { file, description: `synthetic city (seed ${config.citySeed})` };
}

function writeAtomically(file: string, write: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.tmp`;
  write(tmp);
  renameSync(tmp, file);
}

function startsWithGraphMagic(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(GRAPH_MAGIC.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return read === head.length && head.toString('latin1') === GRAPH_MAGIC;
  } finally {
    closeSync(fd);
  }
}
