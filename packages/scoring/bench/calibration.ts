import { driverPopulation, simulateTrip } from '@svc/simulator';
import { FACTORS, type ScoredTrip, scoreTrip } from '../src/index.ts';
import { populationRoute } from '../test/helpers/population-route.ts';

/**
 * The calibration report behind the README: a simulated population (calm .. aggressive, uniform) drives
 * the same route through the synthetic city on a Monday at 08:00; prints how each group scores, the
 * median driver, the rank correlation with the true risk, and each factor's median value and score per
 * group. `npm run calibrate -w packages/scoring [-- <drivers>]`.
 */
const count = Number(process.argv[2] ?? 60);
const { graph, route } = populationRoute();
const population = driverPopulation({ seed: 7, count, fixed: { nightDriving: 0.3, longStints: 0.3 } });
const rows: Array<{ risk: number; trip: ScoredTrip }> = population.map((profile, i) => ({
  risk: profile.drivingRisk,
  trip: scoreTrip(simulateTrip({ route, driver: profile, startMs: Date.UTC(2025, 2, 3, 8), seed: i }).batch, { graph }),
}));

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ranks = (xs: number[]) => {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (const [k, [, i]] of order.entries()) r[i] = k;
  return r;
};
const spearman = (a: number[], b: number[]) => {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (ra[i]! - rb[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
};
const groups = [
  ['calm (risk < 0.35)', (r: number) => r < 0.35],
  ['middle', (r: number) => r >= 0.35 && r <= 0.6],
  ['aggressive (risk > 0.6)', (r: number) => r > 0.6],
] as const;
const factor = (t: ScoredTrip, key: string) => t.themes.flatMap((x) => x.factors).find((f) => f.key === key)!;

console.log(
  `${count} simulated drivers, ${rows[0]!.trip.distanceKm} km route, all map-matched: ${rows.every((r) => r.trip.mapMatched)}`,
);
console.log(`median overall score ${median(rows.map((r) => r.trip.overallScore)).toFixed(1)}`);
console.log(
  `Spearman(score, -true risk) ${spearman(
    rows.map((r) => -r.trip.overallScore),
    rows.map((r) => r.risk),
  ).toFixed(3)}`,
);
for (const [label, inGroup] of groups) {
  const g = rows.filter((r) => inGroup(r.risk));
  const themes = g[0]!.trip.themes.map(
    (t) =>
      `${t.id} ${median(g.map((r) => r.trip.themes.find((x) => x.id === t.id)!.themeScore ?? Number.NaN)).toFixed(0)}`,
  );
  const tiers = g.reduce<Record<string, number>>((acc, r) => {
    acc[r.trip.tier] = (acc[r.trip.tier] ?? 0) + 1;
    return acc;
  }, {});
  console.log(
    `${label.padEnd(24)} n=${String(g.length).padStart(2)} median ${median(g.map((r) => r.trip.overallScore)).toFixed(1)}  ${themes.join(', ')}  tiers ${JSON.stringify(tiers)}`,
  );
}
console.log('\nfactor: median value / median score per group (calm | middle | aggressive), available count');
for (const def of FACTORS) {
  const cells = groups.map(([, inGroup]) => {
    const fs = rows.filter((r) => inGroup(r.risk)).map((r) => factor(r.trip, def.key));
    const avail = fs.filter((f) => f.available);
    if (avail.length === 0) return '      n/a      ';
    return `${median(avail.map((f) => f.value!))
      .toPrecision(3)
      .padStart(7)} / ${median(avail.map((f) => f.score!))
      .toFixed(0)
      .padStart(3)}`;
  });
  console.log(`${def.theme.padEnd(12)} ${def.key.padEnd(30)} ${cells.join(' | ')}`);
}
