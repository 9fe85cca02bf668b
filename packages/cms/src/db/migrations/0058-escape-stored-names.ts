import type { Kysely, Migration } from 'kysely';
import { sanitizeNameField, specialChars } from '../../content/render/kses.ts';
import { nameSortKey } from '../sort-key.ts';

/**
 * Characters sanitizeNameField() never leaves in what it returns: control characters (wp_kses_no_null drops
 * them) and tabs and line breaks (sanitize_text_field turns runs of them into a space), none of which a later
 * step adds back.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const NEVER_FILTERED = /[\x00-\x1F]/;

/**
 * Whether a stored name cannot have been stored by the name save filter (sanitizeNameField), so it was
 * stored before names went through it. The filter ends with specialChars(), applied to kses's output, in
 * which every `&` already starts an entity; so whatever it stores comes out of specialChars() unchanged: no
 * raw `<` or `>`, and every `&` starts an entity that specialChars() keeps (not `&apos;`). A name that
 * specialChars() would change, or that holds a character the filter drops, was written unfiltered.
 * The converse does not hold: the filter is not idempotent (see 0058-escape-stored-names.test.ts), so an
 * unfiltered name without such signs is indistinguishable from a filtered one and is left as it is.
 */
export function storedUnfiltered(value: string): boolean {
  return NEVER_FILTERED.test(value) || specialChars(value) !== value;
}

/** Options of filteredStoredName(). */
export interface StoredNameField {
  /** A name that may not be empty (a term's name, a user's display name and nickname). */
  required: boolean;
  /** The column's width in characters, when it has one (PostgreSQL refuses a longer value). */
  width?: number;
}

/**
 * What a name stored unfiltered becomes: sanitizeNameField() of it, as the save filter would have stored it.
 * Where that is empty for a name that may not be (a name of tags only, such as `<b></b>`), the stored text
 * escaped instead, so the name keeps showing what it showed and holds no raw `<`, `>` or `&`. Escaping can
 * make a name longer than its column: it is then cut at the width, never inside an entity.
 */
export function filteredStoredName(value: string, field: StoredNameField): string {
  let out = sanitizeNameField(value);
  if (out === '' && field.required) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters become spaces
    out = specialChars(value.replace(/[\x00-\x20]+/g, ' ').trim()) || value;
  }
  const chars = Array.from(out);
  if (field.width === undefined || chars.length <= field.width) return out;
  // Every `&` of the name starts an entity ending in `;`: a `&` the cut leaves without one lost its end.
  return chars
    .slice(0, field.width)
    .join('')
    .replace(/&[#A-Za-z0-9]*$/, '');
}

/** The name fields the save filter covers (pre_term_name, pre_user_display_name, _first_name, _last_name, _nickname). */
const USER_FIELDS: Record<'display_name' | 'first_name' | 'last_name' | 'nickname', StoredNameField> = {
  display_name: { required: true, width: 250 },
  first_name: { required: false },
  last_name: { required: false },
  nickname: { required: true },
};
const TERM_NAME: StoredNameField = { required: true, width: 200 };

/**
 * Names stored before the save filter (term and menu names, users' display names, first and last names and
 * nicknames are stored escaped, "A & B" as "A &amp; B", since the names change) are passed through it now,
 * and their sort keys made again. Only names that cannot have been stored through the filter
 * (storedUnfiltered) are changed: the filter is not idempotent, so running it again over every name could
 * change a name saved through it.
 */
export const m0058EscapeStoredNames: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    for (const row of await db.selectFrom('terms').select(['id', 'name']).execute()) {
      if (!storedUnfiltered(row.name)) continue;
      const name = filteredStoredName(row.name, TERM_NAME);
      await db
        .updateTable('terms')
        .set({ name, name_sort: nameSortKey(name) })
        .where('id', '=', row.id)
        .execute();
    }
    const columns = Object.keys(USER_FIELDS) as Array<keyof typeof USER_FIELDS>;
    for (const row of await db
      .selectFrom('users')
      .select(['id', ...columns])
      .execute()) {
      const set: Record<string, string> = {};
      for (const column of columns) {
        if (storedUnfiltered(row[column])) set[column] = filteredStoredName(row[column], USER_FIELDS[column]);
      }
      if (set.display_name !== undefined) set.display_name_sort = nameSortKey(set.display_name);
      if (Object.keys(set).length > 0) await db.updateTable('users').set(set).where('id', '=', row.id).execute();
    }
  },
  // Names cannot be unescaped: "A &amp; B" may have been typed so.
  async down() {},
};
