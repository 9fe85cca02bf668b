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
/**
 * Plates after canonicalisation: upper-case Latin letters (accented ones too: German plates carry Ä, Ö and Ü, as
 * in "MÜ-AB 123"), digits 0-9, space, dash, dot; 1-20 characters, the first a letter or digit. Letters of other
 * scripts are refused: a Cyrillic "А" that looks like a Latin "A" would otherwise make a second vehicle.
 */
export const PLATE_PATTERN = /^[0-9\p{Lu}][0-9\p{Lu} .-]{0,19}$/u;
const PLATE_CHARACTER = /[0-9 .-]|(?=\p{Lu})\p{Script=Latin}/u;

/** True when `plate` (canonical) is a valid plate: PLATE_PATTERN, its letters Latin. */
export function isValidPlate(plate: string): boolean {
  if (!PLATE_PATTERN.test(plate)) return false;
  for (const ch of plate) if (!PLATE_CHARACTER.test(ch)) return false;
  return true;
}

/**
 * The first character of a canonical plate that no plate may hold, named by its code point, or null: a Cyrillic
 * "А" (U+0410) or a Greek "Α" (U+0391) looks like the Latin "A" the rule asks for, a "+" in a URL path is not a
 * space, and a control character does not show at all, so the rule alone does not tell what is wrong.
 */
export function plateCharacterProblem(plate: string): string | null {
  const ALLOWED = 'is not a Latin letter, a digit 0-9, a space, a dot or a dash';
  for (const ch of plate) {
    if (PLATE_CHARACTER.test(ch)) continue;
    const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    // Control and format characters (U+0000-U+001F, U+200B, ...) and combining marks are named by their code
    // point only: printed, they would not show, or not alone.
    return /[\p{C}\p{M}\p{Z}]/u.test(ch) ? `${code} ${ALLOWED}` : `${code} "${ch}" ${ALLOWED}`;
  }
  return null;
}

/**
 * Canonical form of a plate: Unicode NFC (a "U" followed by a combining diaeresis is the "Ü" typed as one
 * character), trimmed, inner runs of spaces collapsed, upper case.
 */
export function canonicalPlate(input: string): string {
  return input.normalize('NFC').trim().replace(/\s+/g, ' ').toUpperCase();
}
