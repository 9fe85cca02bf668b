import { toleranceKmh } from '../events/speeding.ts';
import { eventIdsOf, type TripData } from '../score/trip-data.ts';
import { HIGH_ABSOLUTE_SPEED_KMH } from '../thresholds.ts';
import { type Measurer, per100kmOf, sharePct } from './measure-util.ts';

const SPEEDING = ['speeding'];
/** A road class share needs at least this much driving on it to say anything. */
const MIN_ZONE_S = 60;

/** Seconds in speeding episodes and moving seconds, over the seconds `where` selects (known limits). */
function speedingShareWhere(d: TripData, where: (i: number) => boolean): { speeding: number; total: number } {
  const { band, limitKmh } = d.speeding;
  let speeding = 0;
  let total = 0;
  for (let i = 0; i < d.track.n; i++) {
    if (!d.moving[i] || Number.isNaN(limitKmh[i]!) || !where(i)) continue;
    total++;
    if (band[i]! > 0) speeding++;
  }
  return { speeding, total };
}

function zoneShare(d: TripData, where: (i: number) => boolean, zone: string) {
  const { speeding, total } = speedingShareWhere(d, where);
  if (total < MIN_ZONE_S) return { unavailable: `less than ${MIN_ZONE_S} s driven on ${zone}` };
  return { value: sharePct(speeding, total), eventIds: eventIdsOf(d, SPEEDING, (e) => where(e.peakS)) };
}

function bandShare(d: TripData, bandValue: number) {
  const { band } = d.speeding;
  let s = 0;
  for (let i = 0; i < d.track.n; i++) if (band[i] === bandValue && d.moving[i]) s++;
  return {
    value: sharePct(s, d.speeding.knownLimitMovingS),
    eventIds: eventIdsOf(d, SPEEDING, (e) => {
      for (let i = e.startS; i <= e.endS; i++) if (band[i] === bandValue) return true;
      return false;
    }),
  };
}

export const SPEEDING_MEASURES: Record<string, Measurer> = {
  speedingIntensity: (d) => {
    const { excessKmh, limitKmh } = d.speeding;
    let over = 0;
    let base = 0;
    for (let i = 0; i < d.track.n; i++) {
      const limit = limitKmh[i]!;
      if (!Number.isFinite(limit) || !d.moving[i]) continue;
      const step = d.track.stepM[i]!;
      base += limit * step;
      const e = excessKmh[i]!;
      if (e > 0) over += e * step;
    }
    if (base === 0) return { unavailable: 'no distance on roads with a known finite limit' };
    return { value: (100 * over) / base, eventIds: eventIdsOf(d, SPEEDING) };
  },
  speedingTimeShare: (d) => {
    const { speeding } = speedingShareWhere(d, () => true);
    return { value: sharePct(speeding, d.speeding.knownLimitMovingS), eventIds: eventIdsOf(d, SPEEDING) };
  },
  speedingDistanceShare: (d) => {
    let m = 0;
    for (let i = 0; i < d.track.n; i++) if (d.speeding.band[i]! > 0) m += d.track.stepM[i]!;
    return { value: sharePct(m, d.speeding.knownLimitDistanceM), eventIds: eventIdsOf(d, SPEEDING) };
  },
  speedingEpisodeRate: (d) => ({
    value: per100kmOf(d.speeding.knownLimitDistanceM, d.speeding.episodes.length),
    eventIds: eventIdsOf(d, SPEEDING),
  }),
  minorSpeedingShare: (d) => bandShare(d, 1),
  moderateSpeedingShare: (d) => bandShare(d, 2),
  severeSpeedingShare: (d) => bandShare(d, 3),
  extremeSpeedingRate: (d) => {
    const ids = eventIdsOf(d, SPEEDING, (e) => e.event.details?.band === 'extreme');
    return { value: per100kmOf(d.speeding.knownLimitDistanceM, ids.length), eventIds: ids };
  },
  maxSpeedExcess: (d) => {
    // Held for 3 s, over all known-limit seconds (not only episodes).
    const { excessKmh } = d.speeding;
    let best = 0;
    for (let i = 0; i + 2 < d.track.n; i++) {
      const held = Math.min(excessKmh[i]!, excessKmh[i + 1]!, excessKmh[i + 2]!);
      if (held > best) best = held;
    }
    let top: string[] = [];
    let topValue = -1;
    for (const e of d.speeding.episodes) {
      if (e.event.value > topValue) {
        topValue = e.event.value;
        top = [d.ids.get(e)!];
      }
    }
    return { value: best, eventIds: top };
  },
  longestSpeedingEpisode: (d) => {
    let best = 0;
    let id: string[] = [];
    for (const e of d.speeding.episodes) {
      const s = (e.event.endMs - e.event.startMs) / 1000 + 1;
      if (s > best) {
        best = s;
        id = [d.ids.get(e)!];
      }
    }
    return { value: best, eventIds: id };
  },
  highAbsoluteSpeedShare: (d) => {
    let s = 0;
    for (let i = 0; i < d.track.n; i++)
      if (d.moving[i] && !d.track.gap[i] && d.speedKmh[i]! > HIGH_ABSOLUTE_SPEED_KMH) s++;
    return { value: sharePct(s, d.movingS) };
  },
  lowLimitZoneSpeeding: (d) =>
    zoneShare(
      d,
      (i) => {
        const limit = d.speeding.limitKmh[i]!;
        const e = d.road.edge[i]!;
        return limit <= 30 || (e >= 0 && d.road.edges.get(e)?.highway === 'living_street');
      },
      'roads limited to 30 km/h or less',
    ),
  urbanSpeedingShare: (d) => zoneShare(d, (i) => d.speeding.limitKmh[i]! <= 50, 'roads limited to 50 km/h or less'),
  motorwaySpeedingShare: (d) =>
    zoneShare(
      d,
      (i) => {
        const e = d.road.edge[i]!;
        return e >= 0 && d.road.edges.get(e)?.motorway === true;
      },
      'motorways or trunk roads',
    ),
  limitDropComplianceTime: (d) => {
    const { limitKmh } = d.speeding;
    const n = d.track.n;
    const times: number[] = [];
    let previousLimit = Number.NaN;
    for (let i = 0; i < n; i++) {
      const limit = limitKmh[i]!;
      if (Number.isNaN(limit)) continue;
      const dropped = Number.isFinite(limit) && previousLimit - limit >= 10;
      previousLimit = limit;
      if (!dropped) continue;
      const allowed = limit + toleranceKmh(limit);
      if (!(d.speedKmh[i]! > allowed)) continue;
      // Seconds until the speed is under the new limit + tolerance (capped at 60 s or the limit changing).
      let k = i;
      while (k < n && k - i < 60 && limitKmh[k] === limit && d.speedKmh[k]! > allowed) k++;
      times.push(k - i);
    }
    if (times.length === 0) return { unavailable: 'no lower limit entered above it' };
    return { value: times.reduce((a, b) => a + b, 0) / times.length };
  },
  meanSpeedToLimitRatio: (d) => {
    const { limitKmh } = d.speeding;
    let s = 0;
    let c = 0;
    for (let i = 0; i < d.track.n; i++) {
      const limit = limitKmh[i]!;
      if (!Number.isFinite(limit) || d.track.gap[i] || !d.moving[i]) continue;
      const ratio = d.speedKmh[i]! / limit;
      if (ratio < 0.6) continue;
      s += ratio;
      c++;
    }
    if (c < 30) return { unavailable: 'less than 30 s of free-flowing driving on known limits' };
    return { value: s / c };
  },
  stopSignRollThroughRate: (d) => {
    const signs = d.road.nodePasses.filter((p) => p.control === 'stop');
    if (signs.length === 0) return { unavailable: 'no stop sign passed' };
    let rolled = 0;
    for (const sign of signs) {
      // Slowest speed within 30 m before and 10 m after the sign.
      let min = Number.POSITIVE_INFINITY;
      const at = d.cumM[sign.second]!;
      for (let i = sign.second; i >= 0 && at - d.cumM[i]! <= 30; i--) min = Math.min(min, d.speedKmh[i]!);
      for (let i = sign.second; i < d.track.n && d.cumM[i]! - at <= 10; i++) min = Math.min(min, d.speedKmh[i]!);
      if (min > 10) rolled++;
    }
    return { value: sharePct(rolled, signs.length) };
  },
  wrongWayDistance: (d) => {
    let m = 0;
    for (let i = 0; i < d.track.n; i++) {
      const e = d.road.edge[i]!;
      if (e < 0 || !d.road.edges.get(e)?.oneway || !d.moving[i] || d.speedKmh[i]! < 10) continue;
      const road = d.road.roadBearingDeg[i]!;
      const heading = d.track.headingDeg[i]!;
      if (!Number.isFinite(road) || !Number.isFinite(heading)) continue;
      const diff = Math.abs(((heading - road + 540) % 360) - 180);
      if (diff > 150) m += d.track.stepM[i]!;
    }
    return { value: m };
  },
};
