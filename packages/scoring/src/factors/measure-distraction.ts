import type { FoundEvent } from '../events/found-event.ts';
import {
  PHONE_CALL_HANDHELD,
  PHONE_CALL_HANDS_FREE,
  PHONE_DISTRACTING,
  PHONE_HANDLING,
  PHONE_SCREEN,
} from '../phone/phone-state.ts';
import { eventIdsOf, eventsOf, type TripData } from '../score/trip-data.ts';
import { nearJunctions } from './measure-acceleration.ts';
import { type Measurer, per100km, perHour, sharePct } from './measure-util.ts';

const PHONE = ['phone_use'];

function kindsOf(e: FoundEvent): string[] {
  const kinds = e.event.details?.kinds;
  return Array.isArray(kinds) ? (kinds as string[]) : [];
}

/** Damoov's per-second penalty coefficients by speed band (research/telematics.md §1.4, verbatim). */
export function phoneSpeedCoefficient(speedKmh: number): number {
  if (speedKmh > 105) return 0.4821;
  if (speedKmh > 55) return 0.2929;
  if (speedKmh > 40) return 0.2372;
  return 0.0434;
}

/** Moving seconds whose phone state has any of `flags`. */
function movingSecondsWith(d: TripData, flags: number): number {
  let s = 0;
  for (let i = 0; i < d.track.n; i++) if (d.moving[i] && (d.phone.state[i]! & flags) !== 0) s++;
  return s;
}

function scoredSecondsWhere(d: TripData, where: (i: number) => boolean): number {
  let s = 0;
  for (let i = 0; i < d.track.n; i++) if (d.phoneUse.scored[i] && where(i)) s++;
  return s;
}

export const DISTRACTION_MEASURES: Record<string, Measurer> = {
  phoneUseShare: (d) => ({
    value: sharePct(
      scoredSecondsWhere(d, () => true),
      d.movingS,
    ),
    eventIds: eventIdsOf(d, PHONE),
  }),
  phoneUseEventRate: (d) => {
    const ids = eventIdsOf(d, PHONE);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  phoneHandlingPerHour: (d) => ({
    value: perHour(d, movingSecondsWith(d, PHONE_HANDLING)),
    eventIds: eventIdsOf(d, PHONE, (e) => kindsOf(e).includes('handling')),
  }),
  longestPhoneUseEpisode: (d) => {
    let best = 0;
    let id: string[] = [];
    for (const e of eventsOf(d, 'phone_use')) {
      if (e.event.value > best) {
        best = e.event.value;
        id = [d.ids.get(e)!];
      }
    }
    return { value: best, eventIds: id };
  },
  highSpeedPhoneUsePerHour: (d) => ({
    value: perHour(
      d,
      scoredSecondsWhere(d, (i) => d.speedKmh[i]! > 90),
    ),
    eventIds: eventIdsOf(d, PHONE, (e) => Number(e.event.details?.maxSpeedKmh) > 90),
  }),
  speedWeightedPhoneUse: (d) => {
    let points = 0;
    for (let i = 0; i < d.track.n; i++) if (d.phoneUse.scored[i]) points += phoneSpeedCoefficient(d.speedKmh[i]!);
    return { value: perHour(d, points), eventIds: eventIdsOf(d, PHONE) };
  },
  handheldCallPerHour: (d) => ({
    value: perHour(d, movingSecondsWith(d, PHONE_CALL_HANDHELD)),
    eventIds: eventIdsOf(d, PHONE, (e) => kindsOf(e).includes('handheld_call')),
  }),
  handsFreeCallPerHour: (d) => ({ value: perHour(d, movingSecondsWith(d, PHONE_CALL_HANDS_FREE)) }),
  screenUnlockRate: (d) => ({
    value: perHour(d, d.phone.unlockSeconds.filter((s) => d.moving[s] === 1).length),
  }),
  screenOnMovingShare: (d) => ({ value: sharePct(movingSecondsWith(d, PHONE_SCREEN), d.movingS) }),
  phonePickupRate: (d) => {
    let count = 0;
    for (const [startMs] of d.imu!.pickups) {
      const i = Math.round((startMs - d.track.t0Ms) / 1000);
      if (i >= 0 && i < d.track.n && d.moving[i]) count++;
    }
    return { value: perHour(d, count) };
  },
  phoneUseNearJunctions: (d) => {
    const near = nearJunctions(d, 50);
    return {
      value: perHour(
        d,
        scoredSecondsWhere(d, (i) => near[i] === 1),
      ),
    };
  },
  urbanPhoneUseShare: (d) => {
    let urban = 0;
    for (let i = 0; i < d.track.n; i++) if (d.moving[i] && d.speeding.limitKmh[i]! <= 50) urban++;
    if (urban < 60) return { unavailable: 'less than 60 s on roads limited to 50 km/h or less' };
    return {
      value: sharePct(
        scoredSecondsWhere(d, (i) => d.speeding.limitKmh[i]! <= 50),
        urban,
      ),
    };
  },
  distractedHarshEventCount: (d) => {
    const episodes = eventsOf(d, 'phone_use');
    const ids = eventIdsOf(d, ['harsh_braking', 'harsh_cornering'], (e) =>
      episodes.some((p) => e.event.startMs >= p.event.startMs && e.event.startMs <= p.event.endMs + 10_000),
    );
    return { value: ids.length, eventIds: ids };
  },
  phoneUseAtSpeedRate: (d) => {
    const ids = eventIdsOf(d, PHONE, (e) => Number(e.event.details?.startSpeedKmh) > 50);
    return { value: per100km(d, ids.length), eventIds: ids };
  },
  phoneFreeTrip: (d) => ({ value: eventsOf(d, 'phone_use').length === 0 ? 1 : 0, eventIds: eventIdsOf(d, PHONE) }),
  stoppedPhoneUseShare: (d) => {
    let stopped = 0;
    let using = 0;
    for (let i = 0; i < d.track.n; i++) {
      if (d.moving[i] || d.track.gap[i]) continue;
      stopped++;
      if ((d.phone.state[i]! & PHONE_DISTRACTING) !== 0) using++;
    }
    if (stopped === 0) return { unavailable: 'the vehicle never stood still' };
    return { value: sharePct(using, stopped) };
  },
};
