import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** `bytes` random bytes as lower-case RFC 4648 base32 without padding (URL- and shell-safe). */
export function randomBase32(bytes: number): string {
  const buf = randomBytes(bytes);
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** A new trip id, `trip_` plus 128 random bits. */
export const newTripId = () => `trip_${randomBase32(16)}`;
/** A new vehicle id. Vehicles are addressed by plate in the API; the id survives a plate change. */
export const newVehicleId = () => `veh_${randomBase32(10)}`;
/** A new fleet id when the operator does not choose one. */
export const newFleetId = () => `fleet_${randomBase32(8)}`;
/** Public id of an API token (what `tokens list` shows and `tokens revoke` takes). */
export const newTokenId = () => `tok_${randomBase32(10)}`;
/** Public id of an ingest key. */
export const newIngestKeyId = () => `ik_${randomBase32(10)}`;

/** Trip ids accepted as well-formed in URLs (a little wider than what we generate, for future formats). */
export const TRIP_ID_PATTERN = /^trip_[A-Za-z0-9_-]{1,100}$/;
/** Fleet ids: chosen by the operator or generated; `fleet_` then 1-64 of `[a-z0-9_-]`. */
export const FLEET_ID_PATTERN = /^fleet_[a-z0-9_-]{1,64}$/;
/** Driver ids come from telematics and HR systems, so they are left fairly free. */
export const DRIVER_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,64}$/;
/** Plates after canonicalisation: letters, digits, space, dash, dot; 1-20 characters. */
export const PLATE_PATTERN = /^[A-Z0-9][A-Z0-9 .-]{0,19}$/;

/** Canonical form of a plate: trimmed, inner runs of spaces collapsed, upper case. */
export function canonicalPlate(input: string): string {
  return input.trim().replace(/\s+/g, ' ').toUpperCase();
}
