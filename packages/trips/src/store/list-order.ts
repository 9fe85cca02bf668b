/** The orders a list offers: each field ascending, and descending with a leading `-`. */
export type SortOrder<F extends string> = F | `-${F}`;

/** Every order of `fields`, each ascending then descending: `['plate', '-plate', 'score', '-score', ...]`. */
export function sortOrders<const F extends string>(fields: readonly F[]): readonly SortOrder<F>[] {
  return fields.flatMap((f): SortOrder<F>[] => [f, `-${f}`]);
}

/**
 * Sorts `items` in place by `order` (a field of `keys`, `-` for descending): items without a value (null) come
 * last in either direction, and `tieBreak` orders equal values, so the order is total and pages never overlap.
 */
export function sortByOrder<T>(
  items: T[],
  order: string,
  keys: Record<string, (item: T) => number | string | null>,
  tieBreak: (a: T, b: T) => number,
): T[] {
  const descending = order.startsWith('-');
  const key = keys[descending ? order.slice(1) : order];
  if (!key) throw new Error(`unknown sort order ${order}`);
  return items.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) {
      if (ka === null) return 1;
      if (kb === null) return -1;
      const up = ka < kb ? -1 : 1;
      return descending ? -up : up;
    }
    return tieBreak(a, b);
  });
}

/** Compares two strings by code unit, for tie-breaks (ids and plates). */
export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
