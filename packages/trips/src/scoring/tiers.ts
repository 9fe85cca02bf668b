import type { Tier } from '@svc/scoring';

/** The tiers from worst to best, as the spec's table lists them. */
export const TIERS = ['Critical', 'Fair', 'Good', 'Safe'] as const satisfies readonly Tier[];

/** The spec's one scale for every machine type: <45 Critical, <65 Fair, <80 Good, otherwise Safe. */
export function tierOf(overallScore: number): Tier {
  if (overallScore < 45) return 'Critical';
  if (overallScore < 65) return 'Fair';
  if (overallScore < 80) return 'Good';
  return 'Safe';
}
