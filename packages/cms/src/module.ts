/**
 * The extension surface of the CMS: what a module (a set of controllers, migrations, providers and
 * seed data) receives and what it may contribute. The kernel's own routes are one module; part B's
 * content (posts, pages, revisions, autosaves) is another, listed in controllers/index.ts.
 */
import type { Logger } from '@svc/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Migration, Transaction } from 'kysely';
import type { Authenticator } from './auth/authenticate.ts';
import type { Capabilities } from './auth/capabilities.ts';
import type { CmsConfig } from './config.ts';
import type { ApplicationPasswordsRepository } from './db/application-passwords-repository.ts';
import type { OptionsRepository } from './db/options-repository.ts';
import type { CmsDatabase } from './db/schema.ts';
import type { TermsRepository } from './db/terms-repository.ts';
import type { UsersRepository } from './db/users-repository.ts';
import type { RestRequest } from './rest/request.ts';
import type { RestServer } from './rest/server.ts';

/** What capability mapping needs to know about a post (map_meta_cap's view of WP_Post). */
export interface PostCapInfo {
  id: number;
  /** Post type slug: `post`, `page`, `attachment`, `revision`, ... */
  type: string;
  /** Post status: `publish`, `draft`, `private`, `trash`, ... */
  status: string;
  authorId: number;
  /** Parent post id (revisions and attachments defer to their parent). */
  parentId: number;
  /** For trashed posts: the status before trashing (`_wp_trash_meta_status`). */
  trashedFromStatus?: string;
}

/**
 * What the kernel asks of the content module. The default (before part B registers) knows no posts.
 * All methods must be cheap enough to call once per request.
 */
export interface ContentProvider {
  /**
   * The post behind `edit_post`/`read_post`/`delete_post`/... checks, or null when it does not exist. A
   * read-only `request` may share its lookup of the post with the request's other steps.
   */
  getPostForCaps(postId: number, request?: RestRequest): Promise<PostCapInfo | null>;
  /**
   * Ids of users with at least one published post of the given types (`has_published_posts`,
   * `who=authors` uses all types shown in REST).
   */
  usersWithPublishedPosts(postTypes: readonly string[]): Promise<Set<number>>;
  /** Moves every post of `fromUserId` to `toUserId` (user deletion with `reassign`). */
  reassignPosts(trx: Transaction<CmsDatabase>, fromUserId: number, toUserId: number): Promise<void>;
  /** Deletes every post of a user (user deletion with `reassign=false`). */
  deletePostsOfUser(trx: Transaction<CmsDatabase>, userId: number): Promise<void>;
  /** The terms of a taxonomy attached to a post (`?post=` of the terms routes). */
  termIdsOfPost(postId: number, taxonomy: string): Promise<number[]>;
  /** Removes a term from every object (term deletion). */
  removeTermFromObjects(trx: Transaction<CmsDatabase>, termId: number): Promise<void>;
}

/** Everything a module can use. One per app instance; nothing here is global. */
export interface CmsContext {
  config: CmsConfig;
  db: Kysely<CmsDatabase>;
  dialect: 'sqlite' | 'postgres';
  logger: Logger;
  /** The time source (tests pin it). */
  now: () => Date;
  server: RestServer;
  caps: Capabilities;
  options: OptionsRepository;
  users: UsersRepository;
  terms: TermsRepository;
  appPasswords: ApplicationPasswordsRepository;
  authenticator: Authenticator;
  /** Key of the application-password hashes. */
  secret: string;
  /**
   * Reads the cache generations anew, as every request does first (src/db/cache-generations.ts). Work that no
   * request started (a timer) calls it before reading options or credentials: they would otherwise be used under
   * the generation the last request read, however old, and miss a change another node or worker made since.
   */
  refreshCacheGenerations(): Promise<void>;
  /** Replaced by the content module in its `register`. */
  content: ContentProvider;
  /** Answers the site root (`/` without `rest_route`); set by the public-site module in its `register`. */
  siteRoot?: (req: FastifyRequest, reply: FastifyReply) => unknown;
}

/** Facts the seed step hands to modules on the very first start. */
export interface SeedInfo {
  adminId: number;
}

/** A unit that contributes to the CMS. */
export interface CmsModule {
  name: string;
  /** Migrations keyed by sortable name (`0050-posts`); merged with every other module's. */
  migrations?: Record<string, Migration>;
  /** Registers routes (ctx.server.registerRoute / controller.registerRoutes) and providers. */
  register(ctx: CmsContext): void | Promise<void>;
  /** Creates sample content on the first start (after the administrator exists). */
  seed?(ctx: CmsContext, info: SeedInfo): Promise<void>;
  /** Adds plain HTTP routes beside the REST API (the public site, uploaded files); runs after it is mounted. */
  registerHttp?(app: FastifyInstance, ctx: CmsContext): void | Promise<void>;
}

/** The provider used until a content module sets its own. */
export const noContent: ContentProvider = {
  async getPostForCaps() {
    return null;
  },
  async usersWithPublishedPosts() {
    return new Set();
  },
  async reassignPosts() {},
  async deletePostsOfUser() {},
  async termIdsOfPost() {
    return [];
  },
  async removeTermFromObjects() {},
};
