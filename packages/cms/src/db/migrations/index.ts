import type { Migration } from 'kysely';
import { m0001Users } from './0001-users.ts';
import { m0002Options } from './0002-options.ts';
import { m0003Terms } from './0003-terms.ts';
import { m0004ApplicationPasswords } from './0004-application-passwords.ts';
import { m0056NameSortKeys } from './0056-name-sort-keys.ts';
import { m0058EscapeStoredNames } from './0058-escape-stored-names.ts';
import { m0059NameSortKeysCollation } from './0059-name-sort-keys-collation.ts';
import { m0060CacheGenerations } from './0060-cache-generations.ts';

/**
 * The kernel's migrations. The first ones are 0001-0049 and the content modules' first ones 0050-0055 (from
 * controllers/index.ts, each `CmsModule.migrations`); `allMigrations()` merges them, and names sort in
 * application order. A store that has run a migration refuses one whose name sorts before it, so every
 * migration added since, kernel or content, takes the next free number after all of them (0056 onwards:
 * 0056, 0058, 0059 and 0060 here, 0057 in the content module); a clash of names is an error at start-up.
 */
export const coreMigrations: Record<string, Migration> = {
  '0001-users': m0001Users,
  '0002-options': m0002Options,
  '0003-terms': m0003Terms,
  '0004-application-passwords': m0004ApplicationPasswords,
  '0056-name-sort-keys': m0056NameSortKeys,
  '0058-escape-stored-names': m0058EscapeStoredNames,
  '0059-name-sort-keys-collation': m0059NameSortKeysCollation,
  '0060-cache-generations': m0060CacheGenerations,
};
