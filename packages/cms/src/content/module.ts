/**
 * The content module (part B of the CMS): posts, pages, their revisions and autosaves. It contributes
 * the content tables, the cms/v2 routes for posts and pages (each followed by its revisions and
 * autosaves, as WordPress registers them), the post facts the capability checks need, and the sample
 * content of a new site.
 */
import { AutosavesController } from '../controllers/autosaves.controller.ts';
import { PostsController } from '../controllers/posts.controller.ts';
import { RevisionsController } from '../controllers/revisions.controller.ts';
import type { CmsContext, CmsModule, ContentProvider, PostCapInfo } from '../module.ts';
import { ContentService } from './content-service.ts';
import { ItemJsonCache } from './item-cache.ts';
import { contentMigrations } from './migrations/index.ts';
import { BlockRegistry, ContentRenderer, defaultShortcodes } from './render/index.ts';
import { CachedRenderer } from './render-cache.ts';
import type { ContentRuntime, RegisteredMeta } from './runtime.ts';
import { seedSampleContent } from './sample-content.ts';
import { FutureScheduler } from './scheduler.ts';
import { readContentSettingsFrom } from './site-settings.ts';

/** The REST meta keys of the spec: `_cf_changed` and `inline_featured_image` everywhere, `footnotes` on posts. */
export const REGISTERED_META: Record<string, RegisteredMeta[]> = {
  post: [
    { key: '_cf_changed', type: 'boolean', default: false, description: '' },
    { key: 'inline_featured_image', type: 'boolean', default: false, description: '' },
    { key: 'footnotes', type: 'string', default: '', description: '' },
  ],
  page: [
    { key: '_cf_changed', type: 'boolean', default: false, description: '' },
    { key: 'inline_featured_image', type: 'boolean', default: false, description: '' },
  ],
};

/** The theme's custom templates per post type (Twenty Twenty-Three's, which the reference site runs). */
export const THEME_TEMPLATES: Record<string, string[]> = {
  post: ['blank'],
  page: ['blank', 'blog-alternative', '404'],
};

/** Builds the runtime the controllers share. */
export function createContentRuntime(ctx: CmsContext): ContentRuntime {
  let scheduler: FutureScheduler | undefined;
  const service = new ContentService({
    db: ctx.db,
    options: ctx.options,
    terms: ctx.terms,
    now: ctx.now,
    dialect: ctx.dialect,
    onScheduled: (gmt) => scheduler?.scheduled(gmt),
  });
  scheduler = new FutureScheduler({ service, logger: ctx.logger, beforeWork: () => ctx.refreshCacheGenerations() });
  const blocks = new BlockRegistry();
  const shortcodes = defaultShortcodes();
  const renderers = new Map<string, CachedRenderer>();
  return {
    ctx,
    service,
    scheduler,
    meta: REGISTERED_META,
    templates: THEME_TEMPLATES,
    itemCache: new ItemJsonCache(),
    async renderer() {
      const settings = await service.settings();
      const flavour = `${settings.useSmilies ? 's' : 'n'}|${settings.siteUrl}`;
      let renderer = renderers.get(flavour);
      if (!renderer) {
        renderer = new CachedRenderer(
          new ContentRenderer({
            blocks,
            shortcodes,
            useSmilies: settings.useSmilies,
            smiliesBaseUrl: `${settings.siteUrl}/wp-includes/images/smilies/`,
          }),
          flavour,
        );
        renderers.set(flavour, renderer);
      }
      return renderer;
    },
  };
}

/** The post facts the kernel's capability checks and user/term routes ask for. */
export function contentProvider(runtime: ContentRuntime): ContentProvider {
  const { service } = runtime;
  const repo = service.repo;
  return {
    async getPostForCaps(postId, request): Promise<PostCapInfo | null> {
      // The same lookup (and memo key) as the controllers' getPost: a GET of one post reads it once for
      // its permission check, its handler and the Allow header's checks.
      const post = request?.isReadOnly
        ? await request.memo(`content:post:${postId}`, () => repo.findById(postId))
        : await repo.findById(postId);
      if (!post) return null;
      const info: PostCapInfo = {
        id: post.id,
        type: post.type,
        status: post.status,
        authorId: post.authorId,
        parentId: post.parentId,
      };
      if (post.status === 'trash') {
        const from = await repo.getMeta(post.id, '_wp_trash_meta_status');
        if (typeof from === 'string') info.trashedFromStatus = from;
      }
      return info;
    },
    async usersWithPublishedPosts(postTypes) {
      if (postTypes.length === 0) return new Set();
      const rows = await runtime.ctx.db
        .selectFrom('posts')
        .select('author_id')
        .distinct()
        .where('status', '=', 'publish')
        .where('type', 'in', [...postTypes])
        .execute();
      return new Set(rows.map((r) => Number(r.author_id)));
    },
    async reassignPosts(trx, fromUserId, toUserId) {
      await trx.updateTable('posts').set({ author_id: toUserId }).where('author_id', '=', fromUserId).execute();
    },
    async deletePostsOfUser(trx, userId) {
      // wp_delete_user() without reassignment: the user's posts and pages go to the trash (already
      // trashed ones, and other types, are deleted).
      const settings = await readContentSettingsFrom(trx);
      const rows = await trx
        .selectFrom('posts')
        .select(['id', 'type', 'status'])
        .where('author_id', '=', userId)
        .where('type', '!=', 'revision')
        .execute();
      for (const row of rows) {
        const id = Number(row.id);
        if ((row.type === 'post' || row.type === 'page') && row.status !== 'trash') {
          await service.trashWithin(trx, id, userId, settings);
        } else {
          await service.deleteWithin(trx, id, settings);
        }
      }
    },
    async termIdsOfPost(postId, taxonomy) {
      return (await repo.terms([postId])).filter((t) => t.taxonomy === taxonomy).map((t) => t.termId);
    },
    async removeTermFromObjects(trx, termId) {
      await service.removeTermWithin(trx, termId, await readContentSettingsFrom(trx));
    },
  };
}

const runtimes = new WeakMap<CmsContext, ContentRuntime>();

/** The runtime the content module built for an app (tests and benches reach the service through it). */
export function contentRuntimeOf(ctx: CmsContext): ContentRuntime | undefined {
  return runtimes.get(ctx);
}

export const contentModule: CmsModule = {
  name: 'content',
  migrations: contentMigrations,
  register(ctx) {
    const runtime = createContentRuntime(ctx);
    runtimes.set(ctx, runtime);
    ctx.content = contentProvider(runtime);
    for (const type of ['post', 'page']) {
      const posts = new PostsController(runtime, type);
      const revisions = new RevisionsController(runtime, posts);
      posts.registerRoutes(ctx.server);
      revisions.registerRoutes(ctx.server);
      new AutosavesController(runtime, posts, revisions).registerRoutes(ctx.server);
    }
    runtime.scheduler.start();
    void runtime.scheduler.refresh();
  },
  registerHttp(app, ctx) {
    // Closing the app (shutdown, or the cluster primary after the first-run install) stops the timers.
    app.addHook('onClose', async () => {
      runtimes.get(ctx)?.scheduler.stop();
    });
  },
  async seed(ctx, info) {
    const runtime = runtimes.get(ctx) ?? createContentRuntime(ctx);
    await seedSampleContent(runtime.service, info.adminId);
  },
};
