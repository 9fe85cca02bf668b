/**
 * Sort keys for names, so lists ordered by a name compare as MySQL's utf8mb4_unicode_ci collation does in
 * WordPress: without regard to case or accents ("Émile" sorts with "emile", between "Edgar" and "Fabien").
 *
 * Why a stored key column (terms.name_sort, users.display_name_sort, posts.title_sort) rather than a
 * collation: SQLite as bundled by better-sqlite3 has no ICU, and a collation or function registered from
 * JavaScript would have to be present on every connection that ever reads or writes (CLI, workers, tests) and
 * would run for every row at every sorted read; PostgreSQL's accent-blind ICU collations depend on how the
 * server was built. A key computed once on write is the same on both stores, can be indexed, and costs
 * nothing at read time. The repositories are the only writers of these columns (posts: toRow in
 * src/content/post.ts); migrations 0056 (names) and 0057 (post titles) fill them for rows written before.
 */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  ł: 'l',
  Ł: 'l',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
};

/**
 * The longest key kept, in code points. Compatibility decomposition can make a key many times longer than its
 * name (U+FDFA becomes 18 characters), and the key columns (varchar(400), varchar(500)) and PostgreSQL's b-tree
 * entries (~2,700 bytes) are bounded; names that agree on their first 400 sorted characters then tie, and ties
 * go by id.
 */
export const SORT_KEY_MAX = 400;

/** The key a name sorts by: accents removed (compatibility decomposition), then lower-cased (all of Unicode). */
export function nameSortKey(name: string): string {
  const key = nameCompareKey(name);
  if (key.length <= SORT_KEY_MAX) return key;
  // Cut by code points, never inside a surrogate pair (PostgreSQL refuses a lone surrogate).
  return /[\ud800-\udfff]/.test(key) ? Array.from(key).slice(0, SORT_KEY_MAX).join('') : key.slice(0, SORT_KEY_MAX);
}

/**
 * The whole key (nameSortKey is its first SORT_KEY_MAX characters): two names with the same key are equal to
 * MySQL's collation, as far as the key reproduces it (case and accents ignored, ß as ss, ...). The stored key
 * finds the candidates; this one decides between names whose stored keys were cut.
 */
export function nameCompareKey(name: string): string {
  // ASCII needs only lower-casing, the common case (names are at most 250 characters).
  if (!/[\u0080-\u{10ffff}]/u.test(name)) return name.toLowerCase();
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßẞæÆœŒøØđĐðÐłŁþÞı]/g, (ch) => LETTERS[ch] ?? ch)
    .toLowerCase();
}
