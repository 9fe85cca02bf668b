import type { TripsDb } from './open-trips-database.ts';

/** How many stored trips carry scores of one model version. */
export interface ModelVersionCount {
  modelVersion: string;
  trips: number;
}

/**
 * The stored trips scored by a model other than `current` (an upgrade brought a new one, or the store was
 * restored from another release), per version, most trips first. The comparison is two ranges of the
 * `(model_version, trip_id)` index rather than `<>`, so only those trips are read: on a store that is up to
 * date this reads nothing.
 */
export async function tripsScoredByOtherModels(db: TripsDb, current: string): Promise<ModelVersionCount[]> {
  const rows = await db
    .selectFrom('trips')
    .select(['model_version', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where((eb) => eb.or([eb('model_version', '<', current), eb('model_version', '>', current)]))
    .groupBy('model_version')
    .execute();
  return rows
    .map((r) => ({ modelVersion: r.model_version, trips: Number(r.n) }))
    .sort((a, b) => b.trips - a.trips || a.modelVersion.localeCompare(b.modelVersion));
}

/**
 * One line for an operator: which versions the stored scores come from and the command that brings them to
 * the current model; null when every trip is current.
 */
export function otherModelsNotice(
  counts: readonly ModelVersionCount[],
  current: string,
  environment: string,
): string | null {
  const total = counts.reduce((sum, c) => sum + c.trips, 0);
  if (total === 0) return null;
  const versions = counts.map((c) => `${c.trips} by ${c.modelVersion}`).join(', ');
  return `${total} stored trip${total === 1 ? ' was' : 's were'} scored by another model than the current ${current} (${versions}); they are served with those scores until \`npx trips rescore --env ${environment}\` recomputes them`;
}

/**
 * After a finished rescore: what is still scored, or found unscorable, by another model than `current`, in one line
 * for the operator; null when nothing is. A node of another release running beside the run (an upgrade whose old
 * nodes still served) scores trips after the run's cursor has passed them, and the run's own counts do not show it.
 */
export async function otherModelsLeftNotice(db: TripsDb, current: string): Promise<string | null> {
  const scored = await tripsScoredByOtherModels(db, current);
  const failed = Number(
    (
      await db
        .selectFrom('trip_uploads')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('status', '=', 'failed')
        .where((eb) => eb.or([eb('model_version', '<', current), eb('model_version', '>', current)]))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const scoredTotal = scored.reduce((sum, c) => sum + c.trips, 0);
  if (scoredTotal + failed === 0) return null;
  const versions = scored.map((c) => `${c.trips} by ${c.modelVersion}`).join(', ');
  const parts = [
    ...(scoredTotal > 0
      ? [`${scoredTotal} trip${scoredTotal === 1 ? '' : 's'} scored by another model (${versions})`]
      : []),
    ...(failed > 0 ? [`${failed} upload${failed === 1 ? '' : 's'} found unscorable by another model`] : []),
  ];
  return `${parts.join(' and ')} after this run: a node of another release scored them while it ran; run the command again once every node runs this release`;
}
