import type { TripData } from '../score/trip-data.ts';
import { eventIdsOf } from '../score/trip-data.ts';
import { LATE_NIGHT_END_H, LATE_NIGHT_START_H, MAX_STINT_MIN, NIGHT_END_H, NIGHT_START_H } from '../thresholds.ts';
import { inHourWindow } from '../time/local-clock.ts';
import type { Measurer } from './measure-util.ts';
import { sharePct } from './measure-util.ts';

/** Share of the trip's distance driven in the seconds `where` selects. */
function distanceShare(d: TripData, where: (i: number) => boolean): number {
  let m = 0;
  for (let i = 0; i < d.track.n; i++) if (where(i)) m += d.track.stepM[i]!;
  return sharePct(m, d.distanceM);
}

/** Share of the matched distance on the edges `where` selects. */
function roadShare(d: TripData, where: (e: number) => boolean) {
  let total = 0;
  let m = 0;
  for (let i = 0; i < d.track.n; i++) {
    const e = d.road.edge[i]!;
    if (e < 0) continue;
    total += d.track.stepM[i]!;
    if (where(e)) m += d.track.stepM[i]!;
  }
  if (total < 100) return { unavailable: 'less than 100 m matched to roads' };
  return { value: sharePct(m, total) };
}

function tripMinutes(d: TripData): number {
  return d.track.n > 0 ? (d.track.tMs[d.track.n - 1]! - d.track.tMs[0]!) / 60_000 : 0;
}

const isNight = (h: number) => inHourWindow(h, NIGHT_START_H, NIGHT_END_H);

export const EXPOSURE_MEASURES: Record<string, Measurer> = {
  tripDistanceKm: (d) => ({ value: d.distanceM / 1000 }),
  tripDurationMin: (d) => ({ value: tripMinutes(d) }),
  nightDrivingShare: (d) => ({
    value: distanceShare(d, (i) => isNight(d.localHour[i]!)),
    eventIds: eventIdsOf(d, ['night_driving']),
  }),
  lateNightDrivingShare: (d) => ({
    value: distanceShare(d, (i) => inHourWindow(d.localHour[i]!, LATE_NIGHT_START_H, LATE_NIGHT_END_H)),
    eventIds: eventIdsOf(d, ['late_night_driving']),
  }),
  weekendNightShare: (d) => ({
    // Friday and Saturday nights: Fri/Sat from 22:00, and the small hours of Sat/Sun.
    value: distanceShare(d, (i) => {
      const h = d.localHour[i]!;
      const day = d.weekday[i]!;
      return (h >= NIGHT_START_H && (day === 5 || day === 6)) || (h < NIGHT_END_H && (day === 6 || day === 0));
    }),
  }),
  rushHourShare: (d) => ({
    value: distanceShare(d, (i) => {
      const h = d.localHour[i]!;
      const day = d.weekday[i]!;
      return day >= 1 && day <= 5 && ((h >= 7 && h < 9) || (h >= 16 && h < 19));
    }),
  }),
  darknessShare: (d) => ({ value: distanceShare(d, (i) => d.sunElevationDeg[i]! < -6) }),
  continuousDrivingMinutes: (d) => ({
    value: d.context.priorStintMin + tripMinutes(d),
    eventIds: eventIdsOf(d, ['continuous_driving']),
  }),
  breakDeficitMinutes: (d) => {
    const total = d.context.priorStintMin + tripMinutes(d);
    return {
      value: Math.min(tripMinutes(d), Math.max(0, total - MAX_STINT_MIN)),
      eventIds: eventIdsOf(d, ['continuous_driving']),
    };
  },
  circadianLowDriving: (d) => {
    let s = 0;
    for (let i = 0; i < d.track.n; i++) if (d.moving[i] && d.localHour[i]! >= 2 && d.localHour[i]! < 6) s++;
    return { value: s / 60 };
  },
  dailyDrivingHours: (d) => ({ value: (d.context.priorDayDrivingMin + tripMinutes(d)) / 60 }),
  motorwayShare: (d) => roadShare(d, (e) => d.road.edges.get(e)?.motorway === true),
  urbanRoadShare: (d) =>
    roadShare(d, (e) => {
      const info = d.road.edges.get(e)!;
      return info.limitKmh <= 50 || info.highway === 'residential' || info.highway === 'living_street';
    }),
  ruralSingleCarriagewayShare: (d) =>
    roadShare(d, (e) => {
      const info = d.road.edges.get(e)!;
      const main = info.highway === 'primary' || info.highway === 'secondary' || info.highway === 'tertiary';
      return main && !info.oneway && !info.urban && info.limitKmh >= 80 && Number.isFinite(info.limitKmh);
    }),
  unpavedShare: (d) => roadShare(d, (e) => d.road.edges.get(e)?.unpaved === true),
  // Junctions (three or more roads meet, one-way roads leading in included: `NodePass.junction`) passed per
  // matched km.
  junctionDensity: (d) => {
    let km = 0;
    for (let i = 0; i < d.track.n; i++) if (d.road.edge[i]! >= 0) km += d.track.stepM[i]! / 1000;
    if (km < 0.5) return { unavailable: 'less than 0.5 km matched to roads' };
    return { value: d.road.nodePasses.filter((p) => p.junction).length / km };
  },
  stopFrequency: (d) => ({ value: d.stops.length / Math.max(d.distanceM / 1000, 1) }),
  congestionShare: (d) => {
    let known = 0;
    let slow = 0;
    for (let i = 0; i < d.track.n; i++) {
      const limit = d.speeding.limitKmh[i]!;
      if (!d.moving[i] || Number.isNaN(limit)) continue;
      known++;
      if (limit >= 50 && d.speedKmh[i]! < 20) slow++;
    }
    if (known < 60) return { unavailable: 'less than 60 s on roads with a known limit' };
    return { value: sharePct(slow, known) };
  },
};
