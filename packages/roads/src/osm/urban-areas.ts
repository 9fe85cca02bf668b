import Flatbush from 'flatbush';
import { metresPerDegree } from '../geo.ts';
import { PolygonSet } from './polygon-set.ts';

/** `landuse` values that mean a built-up area. */
export const URBAN_LANDUSE = new Set(['residential', 'commercial', 'retail', 'industrial', 'garages']);

/**
 * Radius (m) around a `place` node treated as built-up when no landuse polygon covers the road. Sized to the
 * typical extent of each settlement type in European OSM data; cities are usually covered by landuse anyway.
 */
export const PLACE_RADIUS_M: Readonly<Record<string, number>> = {
  city: 3000,
  town: 1500,
  suburb: 800,
  village: 600,
  quarter: 400,
  neighbourhood: 250,
  hamlet: 200,
};

/**
 * Density rule for areas OSM has not mapped as built-up: a road is urban when at least
 * `DENSITY_MIN_JUNCTIONS` road junctions lie within `DENSITY_RADIUS_M` of its midpoint (about 35 junctions per
 * km², the density of a small town's street grid; rural roads have a few per km²).
 */
export const DENSITY_RADIUS_M = 300;
export const DENSITY_MIN_JUNCTIONS = 10;

/** Decides whether a point lies in a built-up area, from OSM landuse/place data and road-junction density. */
export class UrbanAreas {
  private readonly polygons = new PolygonSet<true>();
  private readonly places: Array<{ lon: number; lat: number; radiusM: number }> = [];
  private readonly junctions: number[] = [];
  private placeIndex: Flatbush | null = null;
  private junctionIndex: Flatbush | null = null;
  private kx = 111_320;
  private ky = 111_320;

  /** Adds a built-up polygon given as closed rings of [lon, lat]. */
  addPolygon(rings: Array<Array<[number, number]>>): void {
    this.polygons.add(rings, true);
  }

  /** Adds a `place` node; types without a radius are ignored. */
  addPlace(lon: number, lat: number, place: string): void {
    const radiusM = PLACE_RADIUS_M[place];
    if (radiusM) this.places.push({ lon, lat, radiusM });
  }

  /** Adds a road junction (a node where three or more road directions meet) for the density rule. */
  addJunction(lon: number, lat: number): void {
    this.junctions.push(lon, lat);
  }

  get polygonCount(): number {
    return this.polygons.size;
  }

  get placeCount(): number {
    return this.places.length;
  }

  /** Builds the indexes; call once after adding everything and before `isUrban`. */
  finish(referenceLat: number): void {
    ({ kx: this.kx, ky: this.ky } = metresPerDegree(referenceLat));
    this.polygons.finish();
    if (this.places.length > 0) {
      this.placeIndex = new Flatbush(this.places.length);
      for (const p of this.places) {
        const dx = p.radiusM / this.kx;
        const dy = p.radiusM / this.ky;
        this.placeIndex.add(p.lon - dx, p.lat - dy, p.lon + dx, p.lat + dy);
      }
      this.placeIndex.finish();
    }
    const junctionCount = this.junctions.length / 2;
    if (junctionCount > 0) {
      this.junctionIndex = new Flatbush(junctionCount);
      for (let i = 0; i < this.junctions.length; i += 2) {
        this.junctionIndex.add(this.junctions[i]!, this.junctions[i + 1]!);
      }
      this.junctionIndex.finish();
    }
  }

  /** Why a point counts as urban (`landuse`, `place`, `density`), or null when it is rural. */
  classify(lon: number, lat: number): 'landuse' | 'place' | 'density' | null {
    if (this.polygons.find(lon, lat)) return 'landuse';
    if (this.placeIndex) {
      const hits = this.placeIndex.search(lon, lat, lon, lat);
      for (const h of hits) {
        const p = this.places[h]!;
        if (Math.hypot((p.lon - lon) * this.kx, (p.lat - lat) * this.ky) <= p.radiusM) return 'place';
      }
    }
    if (this.junctionIndex) {
      const dx = DENSITY_RADIUS_M / this.kx;
      const dy = DENSITY_RADIUS_M / this.ky;
      let count = 0;
      this.junctionIndex.search(lon - dx, lat - dy, lon + dx, lat + dy, (i) => {
        const jx = this.junctions[2 * i]!;
        const jy = this.junctions[2 * i + 1]!;
        if (Math.hypot((jx - lon) * this.kx, (jy - lat) * this.ky) <= DENSITY_RADIUS_M) count++;
        return false;
      });
      if (count >= DENSITY_MIN_JUNCTIONS) return 'density';
    }
    return null;
  }
}
