import type { Migration } from 'kysely';
import { m0050Posts } from './0050-posts.ts';
import { m0051Postmeta } from './0051-postmeta.ts';
import { m0052TermRelationships } from './0052-term-relationships.ts';
import { m0053PostsSearch } from './0053-posts-search.ts';
import { m0054PostVersionTriggers } from './0054-post-version-triggers.ts';
import { m0055PostsSearchQueue } from './0055-posts-search-queue.ts';

/** The content module's migrations (0050-0099), merged with the kernel's by the module list. */
export const contentMigrations: Record<string, Migration> = {
  '0050-posts': m0050Posts,
  '0051-postmeta': m0051Postmeta,
  '0052-term-relationships': m0052TermRelationships,
  '0053-posts-search': m0053PostsSearch,
  '0054-post-version-triggers': m0054PostVersionTriggers,
  '0055-posts-search-queue': m0055PostsSearchQueue,
};
