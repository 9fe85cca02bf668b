/**
 * The database tables as Kysely sees them. Part B (posts, postmeta, term relationships, revisions) adds
 * its tables by augmenting `CmsTables` from its own files:
 *
 *   declare module '../db/schema.ts' { interface CmsTables { posts: PostsTable } }
 *
 * Dates are stored as WordPress stores them: `YYYY-MM-DD HH:MM:SS` text, in GMT unless the column
 * name says otherwise.
 */
import type { Generated, Kysely } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  login: string;
  /** scrypt hash of the login password (see auth/passwords.ts). */
  pass_hash: string;
  /** URL-friendly name (`user_nicename`), the `slug` of the REST user. */
  nicename: string;
  email: string;
  url: string;
  /** GMT `YYYY-MM-DD HH:MM:SS`. */
  registered: string;
  display_name: string;
  /** display_name's sort key (src/db/sort-key.ts), written by the users repository. */
  display_name_sort: Generated<string>;
  first_name: string;
  last_name: string;
  nickname: string;
  description: string;
  locale: string;
  /** JSON array of role names. */
  roles: string;
  /** JSON object of capabilities granted (true) or denied (false) to this user beyond the roles. */
  caps: string;
}

export interface OptionsTable {
  name: string;
  /** JSON-encoded value. */
  value: string;
}

export interface TermsTable {
  id: Generated<number>;
  taxonomy: string;
  name: string;
  /** name's sort key (src/db/sort-key.ts), written by the terms repository. */
  name_sort: Generated<string>;
  slug: string;
  description: string;
  parent: number;
  /** Published objects in the term; maintained by whoever changes relationships (see terms-repository.ts). */
  count: number;
}

export interface ApplicationPasswordsTable {
  uuid: string;
  user_id: number;
  name: string;
  app_id: string;
  /** HMAC-SHA256 of the password (hex), keyed with the server secret. */
  password_hash: string;
  /** Unix seconds. */
  created: number;
  last_used: number | null;
  last_ip: string | null;
}

/**
 * One row (id 1): generations of the per-process caches, changed by triggers with every change of what each
 * cache is built from (migration 0060, src/db/cache-generations.ts).
 */
export interface CacheGenerationsTable {
  id: number;
  /** Changes with every change of `options`. */
  options: number;
  /** Changes with every change of `users` and of `application_passwords` (but their last use). */
  credentials: number;
}

/** Every table of the CMS. Augmented by part B's modules. */
export interface CmsTables {
  users: UsersTable;
  options: OptionsTable;
  terms: TermsTable;
  application_passwords: ApplicationPasswordsTable;
  cms_cache_generations: CacheGenerationsTable;
}

export type CmsDatabase = CmsTables;
export type CmsDb = Kysely<CmsDatabase>;
