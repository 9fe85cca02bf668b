/**
 * The same simulated trips scored with and without the IMU (`npx tsx bench/imu-gap.ts [drivers]`): per theme,
 * the score difference IMU minus GPS-only for the calm, middle and aggressive thirds, and the rank correlation
 * of the two versions. A score must mean the same thing whatever sensors the phone had.
 */
import { driverPopulation, simulateTrip } from '@svc/simulator';
import { type ScoredTrip, scoreTrip, type ThemeId } from '../src/index.ts';
import { populationRoute } from '../test/helpers/population-route.ts';

const { graph, route } = populationRoute();
const startMs = Date.UTC(2025, 2, 3, 8, 0, 0);
const count = Number(process.argv[2] ?? 30);
const population = driverPopulation({ seed: 11, count, fixed: { nightDriving: 0.3, longStints: 0.3 } });
const THEMES: ThemeId[] = ['braking', 'acceleration', 'cornering', 'speeding', 'distraction'];
const score = (trip: ScoredTrip, id: ThemeId) => trip.themes.find((t) => t.id === id)!.themeScore ?? Number.NaN;

const rows = population.map((driver, seed) => {
  const imu = scoreTrip(simulateTrip({ route, driver, startMs, seed, imuHz: 25 }).batch, { graph });
  const gps = scoreTrip(simulateTrip({ route, driver, startMs, seed, imuHz: 0 }).batch, { graph });
  return { risk: driver.drivingRisk, imu, gps };
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const fmt = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(1);
const groups: [string, (r: number) => boolean][] = [
  ['calm (risk < 0.35)', (r) => r < 0.35],
  ['middle', (r) => r >= 0.35 && r <= 0.6],
  ['aggressive (risk > 0.6)', (r) => r > 0.6],
];
console.log(`${count} drivers; theme score IMU minus GPS-only: median [min, max] of the difference`);
for (const [name, inGroup] of groups) {
  const members = rows.filter((r) => inGroup(r.risk));
  const cells = [...THEMES, 'overall' as const].map((id) => {
    const d = members.map((r) =>
      id === 'overall' ? r.imu.overallScore - r.gps.overallScore : score(r.imu, id) - score(r.gps, id),
    );
    return `${id} ${fmt(median(d))} [${fmt(Math.min(...d))}, ${fmt(Math.max(...d))}]`;
  });
  console.log(`${name.padEnd(24)} n=${String(members.length).padStart(2)}  ${cells.join('  ')}`);
}
for (const id of ['cornering', 'braking', 'acceleration'] as ThemeId[]) {
  const line = groups.map(([name, inGroup]) => {
    const m = rows.filter((r) => inGroup(r.risk));
    return `${name.split(' ')[0]} imu ${median(m.map((r) => score(r.imu, id))).toFixed(0)} gps ${median(m.map((r) => score(r.gps, id))).toFixed(0)}`;
  });
  console.log(`${id.padEnd(13)} medians: ${line.join(' | ')}`);
}
