/** The six themes, in the order every response lists them; each has its columns in `vehicle_stats`. */
export const STAT_THEMES = ['speeding', 'braking', 'acceleration', 'cornering', 'distraction', 'exposure'] as const;

/**
 * The value columns of `vehicle_stats` (migration 0008) and the SQL term of trip row `r` each adds up
 * (times `sign`, 1 or -1): used by its triggers and by readers that add a window's edge trips to its
 * rows. A theme the trip could not measure (null) adds nothing to that theme's sums or count.
 */
export function statTerms(r: string, sign: string): Array<[column: string, term: string]> {
  const terms: Array<[string, string]> = [
    ['trip_count', `${sign}`],
    ['distance_km', `${sign} * ${r}.distance_km`],
    ['duration_min', `${sign} * ${r}.duration_min`],
    ['score_x_distance', `${sign} * ${r}.overall_score * ${r}.distance_km`],
    ['score_sum', `${sign} * ${r}.overall_score`],
  ];
  for (const t of STAT_THEMES) {
    const col = `${r}.theme_${t}`;
    terms.push(
      [`${t}_x_distance`, `${sign} * coalesce(${col} * ${r}.distance_km, 0)`],
      [`${t}_distance`, `${sign} * (case when ${col} is null then 0 else ${r}.distance_km end)`],
      [`${t}_sum`, `${sign} * coalesce(${col}, 0)`],
      [`${t}_count`, `${sign} * (case when ${col} is null then 0 else 1 end)`],
    );
  }
  return terms;
}

/** The Monday (UTC day number) of the week holding day `day` (day 0, 1970-01-01, was a Thursday). */
export const weekStartDay = (day: number) => day - ((((day + 3) % 7) + 7) % 7);
