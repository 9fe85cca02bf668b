import type { Migration } from 'kysely';
import { m0050Posts } from './0050-posts.ts';
import { m0051Postmeta } from './0051-postmeta.ts';
import { m0052TermRelationships } from './0052-term-relationships.ts';
import { m0053PostsSearch } from './0053-posts-search.ts';
import { m0054PostVersionTriggers } from './0054-post-version-triggers.ts';
import { m0055PostsSearchQueue } from './0055-posts-search-queue.ts';
import { m0057PostTitleSortKeys } from './0057-post-title-sort-keys.ts';

/**
 * The content module's migrations, merged with the kernel's by the module list. The first ones took 0050-0055;
 * every later one takes the next number after all the CMS's migrations, kernel or content (see
 * src/db/migrations/index.ts).
 */
export const contentMigrations: Record<string, Migration> = {
  '0050-posts': m0050Posts,
  '0051-postmeta': m0051Postmeta,
  '0052-term-relationships': m0052TermRelationships,
  '0053-posts-search': m0053PostsSearch,
  '0054-post-version-triggers': m0054PostVersionTriggers,
  '0055-posts-search-queue': m0055PostsSearchQueue,
  '0057-post-title-sort-keys': m0057PostTitleSortKeys,
};
