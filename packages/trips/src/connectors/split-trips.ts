import { type Sample, segmentTrips } from '@svc/scoring';
import { MAX_TRIP_SPAN_MS } from '../ingest/accept-upload.ts';
import type { FileContents, FileRejection, FileTrip } from './file-trip.ts';

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * Splits a file's tracks that hold several drives into one trip per drive, by the rule the edge SDK and the
 * scoring engine share (`segmentTrips` of @svc/scoring: a trip ends after 5 minutes stopped or 5 minutes
 * without GPS). A logger's track of a whole day, or a CSV without a trip column, would otherwise be scored as
 * one trip from its first to its last movement, its stops counted as driving time.
 *
 * A track is split only when it holds two or more scorable drives, or one drive in positions spanning more
 * than an upload may (MAX_TRIP_SPAN_MS); otherwise it is left as it was read (one trip, as before), and the
 * ingest operation stores a track of one drive with short movements besides as the drive (acceptUpload, which
 * splits the same way: a drive split here is one movement there, stored as it is). The movements between drives
 * that are too short to be a trip (moving a car across a yard) are left out and reported in `skipped`. A piece's idempotency key is the file's trip id with `.1`, `.2`...
 * when the file names one, else the key of its own fixes, as for any trip without a trip id (import-key.ts).
 */
export function splitDrives(contents: FileContents): FileContents & { skipped: FileRejection[] } {
  const trips: FileTrip[] = [];
  // What the reader left out (a GeoJSON file's waypoints), then the movements between drives.
  const skipped: FileRejection[] = [...(contents.skipped ?? [])];
  for (const trip of contents.trips) {
    let segments: ReturnType<typeof segmentTrips>;
    try {
      segments = segmentTrips(trip.samples);
    } catch {
      // Samples validation will refuse with a precise reason: leave the trip whole for it.
      trips.push(trip);
      continue;
    }
    const drives = segments.filter((s) => s.scorable);
    // One drive in a track that spans more than an upload may (days of a logger left on): the drive alone.
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const x of trip.samples) {
      if (x.type !== 'gps') continue;
      if (x.t < first) first = x.t;
      if (x.t > last) last = x.t;
    }
    const spanMs = last > first ? last - first : 0;
    if (drives.length === 0 || (drives.length === 1 && spanMs <= MAX_TRIP_SPAN_MS)) {
      trips.push(trip);
      continue;
    }
    const indexOf = new Map<Sample, number>(trip.samples.map((s, i) => [s, i]));
    for (const [k, drive] of drives.entries()) {
      const clientTripId =
        typeof trip.meta.clientTripId === 'string' ? `${trip.meta.clientTripId}.${k + 1}` : undefined;
      trips.push({
        label:
          drives.length === 1
            ? `${trip.label}, its drive (${hhmm(drive.startMs)}-${hhmm(drive.endMs)} UTC)`
            : `${trip.label}, drive ${k + 1} of ${drives.length} (${hhmm(drive.startMs)}-${hhmm(drive.endMs)} UTC)`,
        samples: drive.samples,
        meta: { ...trip.meta, ...(clientTripId !== undefined ? { clientTripId } : {}) },
        locate: (i) => {
          const original = indexOf.get(drive.samples[i]!);
          return original === undefined ? `sample ${i}` : trip.locate(original);
        },
      });
    }
    for (const s of segments.filter((x) => !x.scorable)) {
      skipped.push({
        location: `${trip.label}, ${hhmm(s.startMs)}-${hhmm(s.endMs)} UTC`,
        reason: `not a trip between the drives: ${s.reason ?? 'too short to score'}`,
      });
    }
  }
  return { trips, rejected: contents.rejected, skipped };
}
