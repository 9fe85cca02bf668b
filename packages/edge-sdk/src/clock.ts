/**
 * The two clocks the SDK reads. `now` is the wall clock (epoch ms), which the user or NTP can step;
 * `monotonicMs` never goes backwards within a process and is what timers and back-off run on.
 * Tests pass a manual clock; hosts never need to.
 */
export interface Clock {
  now(): number;
  monotonicMs(): number;
}

/** The process clocks: `Date.now()` and `performance.now()`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
};
