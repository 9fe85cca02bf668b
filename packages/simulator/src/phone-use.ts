import type { PhoneSample } from './contract.ts';
import type { DriverParams } from './driver-profile.ts';
import type { Rng } from './random.ts';

/**
 * Phone use during a trip: sessions placed by a Poisson process at the driver's rate, each turned into the events
 * a host app reports (screen, unlock, handling, typing, calls). Handheld sessions are what scoring counts as
 * distraction; hands-free calls and notification glances (screen on without unlock) are reported but distract less.
 */

export const PHONE_SESSION_KINDS = ['screen', 'typing', 'handheld_call', 'hands_free_call', 'glance'] as const;
export type PhoneSessionKind = (typeof PHONE_SESSION_KINDS)[number];

/** One phone-use session, seconds from the trip's first sample. */
export interface PhoneSession {
  kind: PhoneSessionKind;
  startS: number;
  endS: number;
  /** True when the phone is in the driver's hand (screen, typing, handheld call). */
  handheld: boolean;
}

/** Places the phone sessions of a trip of `durationS` seconds (none in the first and last few seconds). */
export function planPhoneSessions(durationS: number, params: DriverParams, rng: Rng): PhoneSession[] {
  const sessions: PhoneSession[] = [];
  if (params.phoneSessionsPerHour <= 0) return sessions;
  const meanGapS = 3600 / params.phoneSessionsPerHour;
  let t = 5 + rng.exponential(meanGapS);
  while (t < durationS - 10) {
    const handheld = rng.chance(params.phoneHandheldShare);
    const sub = rng.next();
    const kind: PhoneSessionKind = handheld
      ? sub < 0.5
        ? 'screen'
        : sub < 0.75
          ? 'typing'
          : 'handheld_call'
      : sub < 0.7
        ? 'hands_free_call'
        : 'glance';
    const length =
      kind === 'glance'
        ? rng.uniform(2, 5)
        : kind.endsWith('call')
          ? rng.logNormal(params.phoneSessionMedianS * 2, 0.6)
          : rng.logNormal(params.phoneSessionMedianS, 0.6);
    const endS = Math.min(t + Math.max(3, length), durationS - 5);
    if (endS - t >= 2) sessions.push({ kind, startS: t, endS, handheld });
    t = endS + rng.exponential(meanGapS);
  }
  return sessions;
}

/** The phone samples of a list of sessions, in time order. */
export function phoneSamples(sessions: readonly PhoneSession[], startMs: number): PhoneSample[] {
  const out: PhoneSample[] = [];
  const at = (s: number) => startMs + Math.round(s * 1000);
  for (const session of sessions) {
    const { startS: a, endS: b } = session;
    switch (session.kind) {
      case 'screen':
      case 'typing':
        out.push({ type: 'phone', t: at(a), event: 'handling_start' });
        out.push({ type: 'phone', t: at(a + 0.4), event: 'screen_on' });
        out.push({ type: 'phone', t: at(a + 1.2), event: 'unlock' });
        if (session.kind === 'typing') {
          out.push({ type: 'phone', t: at(a + 2), event: 'typing_start' });
          out.push({ type: 'phone', t: at(Math.max(a + 2.1, b - 1.2)), event: 'typing_end' });
        }
        out.push({ type: 'phone', t: at(b - 0.6), event: 'lock' });
        out.push({ type: 'phone', t: at(b - 0.5), event: 'screen_off' });
        out.push({ type: 'phone', t: at(b), event: 'handling_end' });
        break;
      case 'handheld_call':
        out.push({ type: 'phone', t: at(a), event: 'handling_start' });
        out.push({ type: 'phone', t: at(a + 0.8), event: 'call_start', handsFree: false });
        out.push({ type: 'phone', t: at(b - 0.5), event: 'call_end', handsFree: false });
        out.push({ type: 'phone', t: at(b), event: 'handling_end' });
        break;
      case 'hands_free_call':
        out.push({ type: 'phone', t: at(a), event: 'call_start', handsFree: true });
        out.push({ type: 'phone', t: at(b), event: 'call_end', handsFree: true });
        break;
      case 'glance':
        out.push({ type: 'phone', t: at(a), event: 'screen_on' });
        out.push({ type: 'phone', t: at(b), event: 'screen_off' });
        break;
    }
  }
  return out;
}
