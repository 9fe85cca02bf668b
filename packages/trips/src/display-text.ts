import { InvalidInputError } from './errors.ts';

/**
 * Characters no display text (fleet, driver and ingest key names, token owners, vehicle make and model) may hold:
 * the C0 and C1 control characters with DEL, which a terminal obeys rather than shows (a newline splits a row of
 * `fleets list`, ESC sequences recolour or rewrite the screen, set its title, ...), and the Unicode bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which reorder the text printed after them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'gu');

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Throws InvalidInputError naming `field` and the first character of `value` that a terminal would obey rather
 * than show; the value itself is not quoted, since printing it is what the rule prevents.
 */
export function checkDisplayText(field: string, value: string): string {
  const found = UNPRINTABLE.exec(value);
  if (found) {
    const ch = found[0];
    const what = /[\u202a-\u202e\u2066-\u2069]/u.test(ch) ? 'a bidirectional control' : 'a control character';
    throw new InvalidInputError(
      `${field} is invalid: ${codePoint(ch)} is ${what}; control characters (U+0000-U+001F, U+007F-U+009F) and bidirectional controls (U+202A-U+202E, U+2066-U+2069) are not allowed`,
    );
  }
  return value;
}

/**
 * Text as a terminal can show it: each character checkDisplayText refuses, stored before the rule, written as a
 * `\u` escape of its code point (`\u001b`, the escape JSON uses for the C0 ones) instead of being obeyed.
 */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE_ALL, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
