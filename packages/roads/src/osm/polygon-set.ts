import Flatbush from 'flatbush';

/**
 * Polygons with a value each, searchable by point. Rings are closed [lon, lat] lists; all rings of one polygon
 * follow the even-odd rule, so inner rings (holes) need no separate handling.
 */
export class PolygonSet<T> {
  private readonly rings: Float64Array[][] = [];
  private readonly values: T[] = [];
  private index: Flatbush | null = null;

  add(rings: Array<Array<[number, number]>>, value: T): void {
    const flat = rings.filter((r) => r.length >= 4).map((r) => Float64Array.from(r.flat()));
    if (flat.length === 0) return;
    this.rings.push(flat);
    this.values.push(value);
  }

  get size(): number {
    return this.values.length;
  }

  /** Builds the index; call once after the last `add`. */
  finish(): void {
    if (this.rings.length === 0) return;
    this.index = new Flatbush(this.rings.length);
    for (const polygon of this.rings) {
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (const ring of polygon) {
        for (let i = 0; i < ring.length; i += 2) {
          minX = Math.min(minX, ring[i]!);
          maxX = Math.max(maxX, ring[i]!);
          minY = Math.min(minY, ring[i + 1]!);
          maxY = Math.max(maxY, ring[i + 1]!);
        }
      }
      this.index.add(minX, minY, maxX, maxY);
    }
    this.index.finish();
  }

  /** The value of the first polygon containing the point, or undefined. */
  find(lon: number, lat: number): T | undefined {
    if (!this.index) return undefined;
    for (const h of this.index.search(lon, lat, lon, lat)) {
      if (pointInRings(lon, lat, this.rings[h]!)) return this.values[h];
    }
    return undefined;
  }
}

function pointInRings(x: number, y: number, rings: Float64Array[]): boolean {
  let inside = false;
  for (const ring of rings) {
    const n = ring.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = ring[2 * i]!;
      const yi = ring[2 * i + 1]!;
      const xj = ring[2 * j]!;
      const yj = ring[2 * j + 1]!;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}
