import type { Migration } from 'kysely';
import { m0001Users } from './0001-users.ts';
import { m0002Options } from './0002-options.ts';
import { m0003Terms } from './0003-terms.ts';
import { m0004ApplicationPasswords } from './0004-application-passwords.ts';
import { m0005NameSortKeys } from './0005-name-sort-keys.ts';

/**
 * The kernel's migrations, 0001-0049. Content migrations (0050-0099) come from the modules in
 * controllers/index.ts (each `CmsModule.migrations`); `allMigrations()` merges them. Names sort in
 * application order.
 */
export const coreMigrations: Record<string, Migration> = {
  '0001-users': m0001Users,
  '0002-options': m0002Options,
  '0003-terms': m0003Terms,
  '0004-application-passwords': m0004ApplicationPasswords,
  '0005-name-sort-keys': m0005NameSortKeys,
};
