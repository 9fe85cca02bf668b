/**
 * Coordinates of every OSM node read, in growable typed arrays, looked up by id with a binary search (OSM
 * extracts are sorted by id; unsorted input is sorted once at the end).
 */
export class NodeStore {
  ids = new Float64Array(1024);
  lon = new Float64Array(1024);
  lat = new Float64Array(1024);
  length = 0;
  private sorted = true;
  private order: Uint32Array | null = null;

  push(id: number, lon: number, lat: number): void {
    if (this.length === this.ids.length) this.grow();
    if (this.length > 0 && id <= this.ids[this.length - 1]!) this.sorted = false;
    this.ids[this.length] = id;
    this.lon[this.length] = lon;
    this.lat[this.length] = lat;
    this.length++;
  }

  /** Trims the arrays and prepares lookups; call once after the last push. */
  finish(): void {
    this.ids = this.ids.slice(0, this.length);
    this.lon = this.lon.slice(0, this.length);
    this.lat = this.lat.slice(0, this.length);
    if (!this.sorted) {
      const order = new Uint32Array(this.length);
      for (let i = 0; i < this.length; i++) order[i] = i;
      const ids = this.ids;
      order.sort((a, b) => ids[a]! - ids[b]!);
      this.order = order;
    }
  }

  /** Index of a node id in the arrays, or -1 when the extract does not contain it. */
  indexOf(id: number): number {
    const { ids, order } = this;
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = order ? order[mid]! : mid;
      const v = ids[k]!;
      if (v === id) return k;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private grow(): void {
    const size = this.ids.length * 2;
    for (const key of ['ids', 'lon', 'lat'] as const) {
      const next = new Float64Array(size);
      next.set(this[key]);
      this[key] = next;
    }
  }
}
