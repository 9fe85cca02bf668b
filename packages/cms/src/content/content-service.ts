/**
 * The content operations with WordPress's semantics (wp_insert_post, wp_update_post, wp_trash_post,
 * wp_delete_post, wp_save_post_revision, autosaves, stick_post, publishing of scheduled posts). The REST
 * controllers, the sample-content seeder and the scheduler all go through this service; each write is
 * one transaction.
 */

import { arg, runShape } from '@svc/platform';
import type { Kysely } from 'kysely';
import { getPostStatus } from '../core/post-statuses.ts';
import { getPostType } from '../core/post-types.ts';
import { fitsColumn } from '../db/column-widths.ts';
import { int32Column } from '../db/limit.ts';
import type { OptionsRepository } from '../db/options-repository.ts';
import type { CmsDatabase } from '../db/schema.ts';
import type { TermsRepository } from '../db/terms-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import { ContentError } from './content-errors.ts';
import { currentTimes, gmtFromLocal, isValidMysqlDate, localFromGmt, wallClockMs, ZERO_DATE } from './dates.ts';
import { permalink } from './permalinks.ts';
import type { Post, PostFields } from './post.ts';
import { type Db, PostRepository } from './post-repository.ts';
import { normalizeWhitespace, phpTrim } from './render/html.ts';
import { ksesData, ksesPost } from './render/kses.ts';
import { type ContentSettings, readContentSettings } from './site-settings.ts';
import { sanitizeTitle, truncateSlug, uniqueSlug } from './slugs.ts';

/** What a create or update changes; absent fields are left as they are. */
export interface PostWrite {
  title?: string;
  content?: string;
  excerpt?: string;
  status?: string;
  /** A new date (`[local, gmt]`); `null` resets it (to now, floating for drafts). */
  date?: { local: string; gmt: string } | null;
  slug?: string;
  authorId?: number;
  password?: string;
  parentId?: number;
  menuOrder?: number;
  commentStatus?: string;
  pingStatus?: string;
  mimeType?: string;
  /**
   * A new post's guid, written with its row (an attachment's is its file's URL, as wp_insert_attachment()
   * gives it); other posts get their permalink.
   */
  guid?: string;
  /** A post format, `standard` for none. */
  format?: string;
  template?: string;
  featuredMedia?: number;
  sticky?: boolean;
  /** Term ids per taxonomy (`category`, `post_tag`, ...). */
  terms?: Record<string, number[]>;
  /** Meta values; null deletes the key. */
  meta?: Record<string, unknown>;
  /** For templates on creation: the names allowed for this type (others are dropped, as handle_template does). */
  allowedTemplates?: readonly string[];
}

/** Who saves and what they may do. */
export interface SaveContext {
  actorId: number;
  /** Whether the actor may publish (publish_posts for new posts, publish_post for existing ones). */
  canPublish: boolean;
  /** An autosave of the author's own draft: no revision is stored. */
  autosave?: boolean;
  /**
   * Whether the actor may post unfiltered HTML; without it title, content and excerpt go through kses
   * on save (the default is true, for the site's own operations).
   */
  unfilteredHtml?: boolean;
}

/**
 * What a create knows about the post it wrote when it commits, filled in for the caller that asks: its
 * response then need not read the post's terms, meta and revisions back, nor check its slug again.
 */
export interface SavedFacts {
  /** The post's terms by taxonomy, each list in get_the_terms order (by name, then id). */
  terms?: Map<string, number[]>;
  /** Its meta values by key, as a read would return them. */
  meta?: Map<string, unknown>;
  /** Its revisions: a new post has none. */
  revisions?: { count: number; latestId: number };
  /**
   * get_sample_permalink's slug (what the title gives, made unique as if published), when the save
   * made the post's slug exactly that way in the same transaction.
   */
  generatedSlug?: string;
}

const WIN1252: Record<string, string> = {
  '&#128;': '&#8364;',
  '&#129;': '',
  '&#130;': '&#8218;',
  '&#131;': '&#402;',
  '&#132;': '&#8222;',
  '&#133;': '&#8230;',
  '&#134;': '&#8224;',
  '&#135;': '&#8225;',
  '&#136;': '&#710;',
  '&#137;': '&#8240;',
  '&#138;': '&#352;',
  '&#139;': '&#8249;',
  '&#140;': '&#338;',
  '&#141;': '',
  '&#142;': '&#381;',
  '&#143;': '',
  '&#144;': '',
  '&#145;': '&#8216;',
  '&#146;': '&#8217;',
  '&#147;': '&#8220;',
  '&#148;': '&#8221;',
  '&#149;': '&#8226;',
  '&#150;': '&#8211;',
  '&#151;': '&#8212;',
  '&#152;': '&#732;',
  '&#153;': '&#8482;',
  '&#154;': '&#353;',
  '&#155;': '&#8250;',
  '&#156;': '&#339;',
  '&#157;': '',
  '&#158;': '&#382;',
  '&#159;': '&#376;',
};

/** convert_invalid_entities(): Windows-1252 code points written as entities become their Unicode ones. */
export function convertInvalidEntities(text: string): string {
  if (!text.includes('&#1')) return text;
  return text.replace(/&#1(?:2[89]|[3-5]\d);/g, (m) => WIN1252[m] ?? m);
}

/**
 * The save filters of title, content and excerpt (title_save_pre, content_save_pre, excerpt_save_pre):
 * titles are trimmed; Windows-1252 entities fixed; without unfiltered_html, kses.
 */
export function saveFilters(
  fields: { title: string; content: string; excerpt: string },
  unfilteredHtml: boolean,
): { title: string; content: string; excerpt: string } {
  let { title, content, excerpt } = fields;
  if (!unfilteredHtml) {
    title = ksesData(title);
    content = ksesPost(content);
    excerpt = ksesPost(excerpt);
  }
  return { title: phpTrim(title), content: convertInvalidEntities(content), excerpt: convertInvalidEntities(excerpt) };
}

export interface ContentServiceDeps {
  db: Kysely<CmsDatabase>;
  options: OptionsRepository;
  terms: TermsRepository;
  now: () => Date;
  /** The database's dialect (tunes list queries; defaults to PostgreSQL's portable forms). */
  dialect?: 'sqlite' | 'postgres';
  /** Called when a post becomes `future`, with its GMT date (the scheduler's wake-up). */
  onScheduled?: (gmt: string) => void;
}

const FLOATING = ['draft', 'pending', 'auto-draft'];

/** PHP's empty() on a string. */
function phpEmpty(s: string | undefined): boolean {
  return s === undefined || s === '' || s === '0';
}

/** The fields that make a revision (_wp_post_revision_fields). */
export const REVISION_FIELDS = ['title', 'content', 'excerpt'] as const;

export class ContentService {
  readonly repo: PostRepository;
  readonly #deps: ContentServiceDeps;

  constructor(deps: ContentServiceDeps) {
    this.#deps = deps;
    this.repo = new PostRepository(deps.db, deps.dialect);
  }

  get db(): Kysely<CmsDatabase> {
    return this.#deps.db;
  }

  now(): Date {
    return this.#deps.now();
  }

  /** The site settings the content rules depend on. */
  settings(): Promise<ContentSettings> {
    return readContentSettings(this.#deps.options);
  }

  /**
   * Creates a post of `type` (wp_insert_post plus what the REST controller does after it). `facts`, when
   * given, receives what the create knows of the post it wrote (see SavedFacts).
   */
  async create(type: string, write: PostWrite, ctx: SaveContext, facts?: SavedFacts): Promise<Post> {
    const settings = await this.settings();
    return writeTransaction(this.db, async (trx) => {
      const post = await this.#save(trx, null, type, write, ctx, settings, facts);
      if (facts) {
        facts.revisions = { count: 0, latestId: 0 };
        // #afterSave writes only the request's meta to a new post; read back, each value is its JSON.
        const meta = new Map<string, unknown>();
        for (const [key, value] of Object.entries(write.meta ?? {})) {
          if (value !== null && value !== undefined) meta.set(key, JSON.parse(JSON.stringify(value)));
        }
        facts.meta = meta;
      }
      // The post as #save read it back is current unless #afterSave wrote to it.
      if (!(await this.#afterSave(trx, post, write, true, settings))) return post;
      return (await this.repo.findById(post.id, trx)) as Post;
    });
  }

  /** Updates a post (wp_update_post plus what the REST controller does after it). */
  async update(id: number, write: PostWrite, ctx: SaveContext): Promise<Post> {
    const settings = await this.settings();
    return writeTransaction(this.db, async (trx) => {
      const existing = await this.repo.findById(id, trx);
      if (!existing) throw new ContentError('invalid_post', 'Invalid post ID.', 404);
      const post = await this.#save(trx, existing, existing.type, write, ctx, settings);
      await this.#afterSave(trx, post, write, false, settings);
      return (await this.repo.findById(post.id, trx)) as Post;
    });
  }

  /** wp_trash_post(): the post goes to the trash (its slug freed, its status remembered). */
  async trash(id: number, actorId: number): Promise<Post> {
    const settings = await this.settings();
    return writeTransaction(this.db, (trx) => this.trashWithin(trx, id, actorId, settings));
  }

  /** wp_trash_post() inside a caller's transaction. */
  async trashWithin(trx: Db, id: number, actorId: number, settings: ContentSettings): Promise<Post> {
    const post = await this.repo.findById(id, trx);
    if (!post) throw new ContentError('invalid_post', 'Invalid post ID.', 404);
    if (post.status === 'trash')
      throw new ContentError('rest_already_trashed', 'The post has already been deleted.', 410);
    await this.#resetFrontPageSettings(trx, post, settings);
    await this.repo.setMeta(id, '_wp_trash_meta_status', post.status, trx);
    await this.repo.setMeta(id, '_wp_trash_meta_time', Math.floor(this.now().getTime() / 1000), trx);
    return this.#save(trx, post, post.type, { status: 'trash' }, { actorId, canPublish: true }, settings);
  }

  /** wp_delete_post( $id, true ): the post, its revisions and meta go; children move up. */
  async delete(id: number): Promise<void> {
    const settings = await this.settings();
    await writeTransaction(this.db, (trx) => this.deleteWithin(trx, id, settings));
  }

  /** wp_delete_post( $id, true ) inside a caller's transaction. */
  async deleteWithin(trx: Db, id: number, settings: ContentSettings): Promise<void> {
    const post = await this.repo.findById(id, trx);
    if (!post) return;
    await this.#resetFrontPageSettings(trx, post, settings);
    const termIds = await this.repo.termIdsOf(id, trx);
    if (getPostType(post.type)?.hierarchical) {
      await trx
        .updateTable('posts')
        .set({ parent_id: post.parentId })
        .where('parent_id', '=', id)
        .where('type', '=', post.type)
        .execute();
    }
    const revisions = await trx
      .selectFrom('posts')
      .select('id')
      .where('parent_id', '=', id)
      .where('type', '=', 'revision')
      .execute();
    for (const r of revisions) await this.repo.delete(Number(r.id), trx);
    await trx
      .updateTable('posts')
      .set({ parent_id: post.parentId })
      .where('parent_id', '=', id)
      .where('type', '=', 'attachment')
      .execute();
    await this.repo.delete(id, trx);
    await this.#recount(trx, termIds);
  }

  /**
   * wp_delete_term()'s effect on posts: the term leaves every post; a post left without a category
   * falls back to the default category.
   */
  async removeTermWithin(trx: Db, termId: number, settings: ContentSettings): Promise<void> {
    const term = await trx.selectFrom('terms').select(['taxonomy']).where('id', '=', termId).executeTakeFirst();
    const objects = (
      await trx.selectFrom('term_relationships').select('object_id').where('term_id', '=', termId).execute()
    ).map((r) => Number(r.object_id));
    await trx.deleteFrom('term_relationships').where('term_id', '=', termId).execute();
    if (term?.taxonomy !== 'category' || settings.defaultCategory <= 0 || settings.defaultCategory === termId) return;
    for (const objectId of objects) {
      const left = await this.repo.terms([objectId], trx);
      if (!left.some((t) => t.taxonomy === 'category')) {
        await this.repo.setTerms(objectId, 'category', [settings.defaultCategory], trx);
      }
    }
    await this.#recount(trx, [settings.defaultCategory]);
  }

  /** Deletes a revision or autosave (wp_delete_post_revision). */
  async deleteRevision(id: number): Promise<void> {
    await writeTransaction(this.db, async (trx) => {
      await this.repo.delete(id, trx);
    });
  }

  /**
   * The ids in the `sticky_posts` option, read through `db` (inside a transaction the options cache,
   * which reads through its own connection, must not be used).
   */
  async stickyPosts(db: Db = this.db): Promise<number[]> {
    // Read by every create (unstick_post): compiled once.
    const [row] = await runShape(
      db,
      'options-sticky-posts',
      () => db.selectFrom('options').select('value').where('name', '=', 'sticky_posts'),
      [],
    );
    if (!row) return [];
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      return [];
    }
    return Array.isArray(value) ? value.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0) : [];
  }

  /** is_sticky(). */
  async isSticky(id: number): Promise<boolean> {
    return (await this.stickyPosts()).includes(id);
  }

  async #setSticky(trx: Db, id: number, sticky: boolean): Promise<void> {
    const current = await this.stickyPosts(trx);
    const has = current.includes(id);
    if (sticky === has) return;
    const next = sticky ? [...new Set([...current, id])] : current.filter((p) => p !== id);
    await this.#deps.options.set('sticky_posts', next, trx);
  }

  /**
   * Publishes the scheduled posts whose date has come (check_and_publish_future_post). Returns their
   * ids.
   */
  async publishDuePosts(): Promise<number[]> {
    const gmtNow = currentTimes(this.now(), { kind: 'offset', minutes: 0 }).gmt;
    const due = await this.repo.dueFuturePosts(gmtNow);
    if (due.length === 0) return [];
    const settings = await this.settings();
    const published: number[] = [];
    for (const id of due) {
      const done = await writeTransaction(this.db, async (trx) => {
        const post = await this.repo.findById(id, trx);
        if (post?.status !== 'future' || post.dateGmt > gmtNow) return false;
        await this.#publishPost(trx, post, settings);
        return true;
      });
      if (done) published.push(id);
    }
    return published;
  }

  /** The earliest date a scheduled post is due, or null. */
  nextScheduledDate(): Promise<string | null> {
    return this.repo.nextFutureDate();
  }

  /** wp_publish_post(): status to publish (default category added when none), nothing else changes. */
  async #publishPost(trx: Db, post: Post, settings: ContentSettings): Promise<void> {
    const type = getPostType(post.type);
    if (type?.taxonomies.includes('category') && settings.defaultCategory > 0) {
      const terms = await this.repo.terms([post.id], trx);
      if (!terms.some((t) => t.taxonomy === 'category')) {
        await this.repo.setTerms(post.id, 'category', [settings.defaultCategory], trx);
      }
    }
    await this.repo.update(post.id, { status: 'publish' }, trx);
    await this.#recount(trx, await this.repo.termIdsOf(post.id, trx));
  }

  // ---- revisions and autosaves ----

  /**
   * wp_save_post_revision(): stores the post's current title, content and excerpt as a revision, unless
   * they equal the latest revision's (white space normalized). The first update of a post always makes
   * one.
   */
  async saveRevision(trx: Db, post: Post, actorId: number, settings: ContentSettings): Promise<number | null> {
    const supports = getPostType(post.type)?.supports ?? {};
    if (!supports.revisions || post.status === 'auto-draft') return null;
    const revisions = await this.repo.children(post.id, 'revision', trx);
    const latest = revisions.find((r) => r.slug.includes(`${post.id}-revision`));
    if (latest) {
      const changed = REVISION_FIELDS.some((f) => normalizeWhitespace(post[f]) !== normalizeWhitespace(latest[f]));
      if (!changed) return null;
    }
    return this.#putRevision(trx, post, actorId, false, settings);
  }

  /** _wp_put_post_revision(): a revision (or autosave) row from a post's fields. */
  async #putRevision(
    trx: Db,
    source: Pick<Post, 'id' | 'modifiedLocal' | 'modifiedGmt'> & Partial<Pick<Post, 'title' | 'content' | 'excerpt'>>,
    actorId: number,
    autosave: boolean,
    settings: ContentSettings,
  ): Promise<number> {
    const times = currentTimes(this.now(), settings.zone);
    const dateLocal = source.modifiedLocal || times.local;
    const dateGmt =
      source.modifiedGmt && source.modifiedGmt !== ZERO_DATE
        ? source.modifiedGmt
        : gmtFromLocal(dateLocal, settings.zone);
    const fields: PostFields = {
      type: 'revision',
      status: 'inherit',
      authorId: actorId,
      parentId: source.id,
      menuOrder: 0,
      title: source.title ?? '',
      content: source.content ?? '',
      excerpt: source.excerpt ?? '',
      slug: autosave ? `${source.id}-autosave-v1` : `${source.id}-revision-v1`,
      password: '',
      dateLocal,
      dateGmt,
      modifiedLocal: dateLocal,
      modifiedGmt: dateGmt,
      commentStatus: 'closed',
      pingStatus: 'closed',
      commentCount: 0,
      guid: '',
      mimeType: '',
      format: '',
      template: '',
      featuredMedia: 0,
    };
    const id = await this.repo.insert(fields, trx);
    await this.repo.update(id, { guid: storableGuid(`${settings.home}/?p=${id}`) }, trx);
    return id;
  }

  /** wp_get_post_autosave(): the newest autosave of a post, optionally of one user. */
  async findAutosave(postId: number, userId?: number, db: Db = this.db): Promise<Post | null> {
    const revisions = await this.repo.children(postId, 'revision', db);
    return (
      revisions.find(
        (r) =>
          r.status === 'inherit' &&
          r.slug === `${postId}-autosave-v1` &&
          (userId === undefined || r.authorId === userId),
      ) ?? null
    );
  }

  /**
   * An autosave, as the autosaves endpoint makes it: the author's own draft is updated in place (no
   * revision); otherwise the user's autosave revision is created or overwritten — and removed when it
   * no longer differs from the post (`rest_autosave_no_changes`).
   */
  async autosave(
    postId: number,
    write: Pick<PostWrite, 'title' | 'content' | 'excerpt'> & PostWrite,
    ctx: SaveContext,
  ): Promise<Post> {
    const settings = await this.settings();
    const outcome = await writeTransaction(this.db, async (trx): Promise<Post | 'no-changes'> => {
      const post = await this.repo.findById(postId, trx);
      if (!post) throw new ContentError('rest_post_invalid_id', 'Invalid post ID.', 404);
      const isDraft = post.status === 'draft' || post.status === 'auto-draft';
      if (isDraft && post.authorId === ctx.actorId) {
        // Only the post's own fields: the autosave endpoint does not touch terms, meta or stickiness.
        const { title, content, excerpt, status, date, slug, authorId, password, parentId, menuOrder } = write;
        const { commentStatus, pingStatus } = write;
        const fields = {
          title,
          content,
          excerpt,
          status,
          date,
          slug,
          authorId,
          password,
          parentId,
          menuOrder,
          commentStatus,
          pingStatus,
        };
        const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as PostWrite;
        return this.#save(trx, post, post.type, defined, { ...ctx, autosave: true }, settings);
      }
      const old = await this.findAutosave(postId, ctx.actorId, trx);
      const filtered = saveFilters(
        { title: write.title ?? '', content: write.content ?? '', excerpt: write.excerpt ?? '' },
        ctx.unfilteredHtml ?? true,
      );
      const fields = {
        ...(write.title !== undefined ? { title: filtered.title } : {}),
        ...(write.content !== undefined ? { content: filtered.content } : {}),
        ...(write.excerpt !== undefined ? { excerpt: filtered.excerpt } : {}),
      };
      if (old) {
        const next = { title: fields.title ?? '', content: fields.content ?? '', excerpt: fields.excerpt ?? '' };
        const different = (Object.keys(fields) as Array<keyof typeof next>).some(
          (f) => normalizeWhitespace(next[f]) !== normalizeWhitespace(post[f]),
        );
        if (!different) {
          // The stale autosave goes even though the request fails, so this commits before the error.
          await this.repo.delete(old.id, trx);
          return 'no-changes';
        }
        const times = currentTimes(this.now(), settings.zone);
        await this.repo.update(
          old.id,
          {
            ...next,
            authorId: ctx.actorId,
            modifiedLocal: times.local,
            modifiedGmt: times.gmt,
            dateLocal: times.local,
            dateGmt: times.gmt,
          },
          trx,
        );
        return (await this.repo.findById(old.id, trx)) as Post;
      }
      const id = await this.#putRevision(
        trx,
        { id: postId, modifiedLocal: '', modifiedGmt: '', ...fields },
        ctx.actorId,
        true,
        settings,
      );
      return (await this.repo.findById(id, trx)) as Post;
    });
    if (outcome === 'no-changes') {
      throw new ContentError(
        'rest_autosave_no_changes',
        'There is nothing to save. The autosave and the post content are the same.',
        400,
      );
    }
    return outcome;
  }

  // ---- the heart: wp_insert_post ----

  async #save(
    trx: Db,
    existing: Post | null,
    type: string,
    w: PostWrite,
    ctx: SaveContext,
    settings: ContentSettings,
    facts?: SavedFacts,
  ): Promise<Post> {
    const now = this.now();
    const times = currentTimes(now, settings.zone);
    const update = existing !== null;
    const typeDef = getPostType(type);
    const supports = typeDef?.supports ?? {};
    const hierarchical = typeDef?.hierarchical ?? false;

    const { title, content, excerpt } = saveFilters(
      {
        title: w.title ?? existing?.title ?? '',
        content: w.content ?? existing?.content ?? '',
        excerpt: w.excerpt ?? existing?.excerpt ?? '',
      },
      ctx.unfilteredHtml ?? true,
    );
    // Pages have no excerpt support, so WordPress lets them be saved empty.
    const maybeEmpty =
      type !== 'attachment' &&
      phpEmpty(content) &&
      phpEmpty(title) &&
      phpEmpty(excerpt) &&
      Boolean(supports.editor && supports.title && supports.excerpt);
    if (maybeEmpty) throw new ContentError('empty_content', 'Content, title, and excerpt are empty.', 400);

    let status = w.status || existing?.status || 'draft';
    if (type === 'attachment' && !['inherit', 'private', 'trash', 'auto-draft'].includes(status)) status = 'inherit';

    // Dates: a draft whose date floats takes the time of each save until it is given one.
    const editDate = w.date !== undefined && w.date !== null;
    let dateLocal = w.date === null ? '' : (w.date?.local ?? existing?.dateLocal ?? '');
    let dateGmt = w.date === null ? '' : (w.date?.gmt ?? existing?.dateGmt ?? '');
    if (existing && FLOATING.includes(existing.status) && !editDate && existing.dateGmt === ZERO_DATE) {
      dateLocal = times.local;
      dateGmt = '';
    }

    let slug = w.slug !== undefined ? w.slug : (existing?.slug ?? '');
    if (status === 'pending' && !ctx.canPublish) slug = '';
    // A slug made from the title here is what get_sample_permalink would generate (see SavedFacts).
    const slugFromTitle = slug === '' && !FLOATING.includes(status);
    if (slug === '') slug = FLOATING.includes(status) ? '' : sanitizeTitle(title);
    else slug = sanitizeTitle(slug);

    if (dateLocal === '' || dateLocal === ZERO_DATE) {
      dateLocal = dateGmt === '' || dateGmt === ZERO_DATE ? times.local : localFromGmt(dateGmt, settings.zone);
    }
    if (!isValidMysqlDate(dateLocal)) throw new ContentError('invalid_date', 'Invalid date.', 400);
    if (dateGmt === '' || dateGmt === ZERO_DATE) {
      const floating = getPostStatus(status)?.dateFloating ?? FLOATING.includes(status);
      dateGmt = floating ? ZERO_DATE : gmtFromLocal(dateLocal, settings.zone);
    }
    const modified = update ? times : { local: dateLocal, gmt: dateGmt };

    if (type !== 'attachment' && dateGmt !== ZERO_DATE) {
      const ahead = wallClockMs(dateGmt) - Math.floor(now.getTime() / 1000) * 1000;
      if (status === 'publish' && ahead >= 60_000) status = 'future';
      else if (status === 'future' && ahead < 60_000) status = 'publish';
    }

    const commentStatus =
      w.commentStatus ||
      existing?.commentStatus ||
      (update ? 'closed' : defaultCommentStatus(type, settings, 'comment'));
    const pingStatus = w.pingStatus || existing?.pingStatus || defaultCommentStatus(type, settings, 'ping');
    const menuOrder = int32Column(w.menuOrder ?? existing?.menuOrder ?? 0);
    const password = status === 'private' ? '' : (w.password ?? existing?.password ?? '');
    let parentId = w.parentId ?? existing?.parentId ?? 0;
    if (existing) parentId = await this.#checkHierarchyLoops(trx, existing.id, parentId);

    const previousStatus = existing?.status ?? 'new';
    if (existing && previousStatus === 'trash' && status !== 'trash') {
      const desired = await this.repo.getMeta(existing.id, '_wp_desired_post_slug', trx);
      if (typeof desired === 'string' && desired !== '') {
        await this.repo.deleteMeta(existing.id, '_wp_desired_post_slug', trx);
        slug = desired;
      }
    }
    if (status !== 'trash' && slug !== '') await this.#suffixTrashedWithSlug(trx, slug, type, existing?.id ?? 0);
    if (existing && status === 'trash' && previousStatus !== 'trash') slug = await this.#trashedSlug(trx, existing);

    if (slug !== '') {
      slug = await uniqueSlug(slug, {
        status,
        type,
        hierarchical,
        permalinkStructure: settings.permalinkStructure,
        currentSlug: existing?.slug,
        isTaken: (candidate) =>
          this.repo.slugTaken(candidate, { type, excludeId: existing?.id ?? 0, hierarchical, parentId }, trx),
      });
    }

    const fields: PostFields = {
      type,
      status,
      authorId: w.authorId ?? existing?.authorId ?? ctx.actorId,
      parentId,
      menuOrder,
      title,
      content,
      excerpt,
      slug,
      password,
      dateLocal,
      dateGmt,
      modifiedLocal: modified.local,
      modifiedGmt: modified.gmt,
      commentStatus,
      pingStatus,
      commentCount: existing?.commentCount ?? 0,
      guid: existing?.guid ?? '',
      mimeType: w.mimeType ?? existing?.mimeType ?? '',
      format: existing?.format ?? '',
      template: existing?.template ?? '',
      featuredMedia: existing?.featuredMedia ?? 0,
    };

    // A new post's guid is its permalink, which usually does not depend on its id: then it is inserted
    // with the row instead of written by a second statement.
    const slugAfterInsert = slug === '' && !FLOATING.includes(status);
    const ancestors = !existing && hierarchical ? await this.ancestorSlugs(parentId, trx) : [];
    let guidPending = !existing;
    if (!existing && w.guid !== undefined) {
      fields.guid = w.guid;
      guidPending = false;
    } else if (!existing && !slugAfterInsert) {
      const guid = guidWithoutId(fields, settings, ancestors);
      if (guid !== null) {
        fields.guid = storableGuid(guid);
        guidPending = false;
      }
    }

    let id: number;
    if (existing) {
      id = existing.id;
      await this.repo.update(id, fields, trx);
    } else {
      id = await this.repo.insert(fields, trx);
    }
    const extra: Partial<PostFields> = {};
    if (slugAfterInsert) {
      extra.slug = await uniqueSlug(sanitizeTitle(title, String(id)), {
        status,
        type,
        hierarchical,
        permalinkStructure: settings.permalinkStructure,
        isTaken: (candidate) => this.repo.slugTaken(candidate, { type, excludeId: id, hierarchical, parentId }, trx),
      });
      fields.slug = extra.slug;
    }
    if (guidPending) {
      const guid = storableGuid(permalink({ ...fields, id, version: 1 }, settings, { ancestors }));
      if (guid !== '') extra.guid = guid;
    }
    if (Object.keys(extra).length > 0) await this.repo.update(id, extra, trx);
    if (facts && !existing && slugFromTitle) facts.generatedSlug = fields.slug;

    // Categories: a post always has one (the default category) unless the request sets them. wp_update_post()
    // gives wp_insert_post() the post's current categories, so a saved post that has none gets the default
    // one as well; categories a request names are set after that, as they are (an empty list included).
    const added: number[] = [];
    const removed: number[] = [];
    const sets: Array<readonly [string, readonly number[]]> = [];
    if (
      typeDef?.taxonomies.includes('category') &&
      status !== 'auto-draft' &&
      w.terms?.category === undefined &&
      settings.defaultCategory > 0 &&
      (!existing || !(await this.repo.terms([id], trx)).some((term) => term.taxonomy === 'category'))
    ) {
      sets.push(['category', [settings.defaultCategory]]);
    }
    for (const [taxonomy, ids] of Object.entries(w.terms ?? {})) {
      if (typeDef?.taxonomies.includes(taxonomy)) sets.push([taxonomy, ids]);
    }
    if (!existing) {
      // A post inserted just now has no terms yet: every taxonomy's terms are checked and added at once.
      const terms = await this.repo.addTermsToNewPost(id, sets, trx);
      for (const term of terms) added.push(term.id);
      if (facts) {
        // addTermsToNewPost lists the terms in get_the_terms order.
        facts.terms = new Map();
        for (const term of terms) {
          const list = facts.terms.get(term.taxonomy);
          if (list) list.push(term.id);
          else facts.terms.set(term.taxonomy, [term.id]);
        }
      }
    } else {
      for (const [taxonomy, ids] of sets) {
        const change = await this.repo.replaceTerms(id, taxonomy, ids, trx);
        added.push(...change.added);
        removed.push(...change.removed);
      }
    }
    await this.#updateCounts(trx, id, existing, { type, status, parentId }, added, removed);

    // A post inserted just now holds what was written, and a version the triggers counted up: only that
    // is read back (the full row, text included, cost twice as much).
    const saved = existing
      ? ((await this.repo.findById(id, trx)) as Post)
      : { ...fields, ...extra, id, version: (await this.repo.versionOf(id, trx)) as number };
    if (status === 'future') this.#deps.onScheduled?.(saved.dateGmt);
    if (existing && !ctx.autosave) await this.saveRevision(trx, saved, ctx.actorId, settings);
    return saved;
  }

  /** What the REST controller does after wp_insert_post: sticky, featured image, format, template, meta. */
  async #afterSave(trx: Db, post: Post, w: PostWrite, creating: boolean, settings: ContentSettings): Promise<boolean> {
    let wrote = false;
    const changes: Partial<PostFields> = {};
    if (post.type === 'post') {
      // Sticky is an option, not a field of the post: the post itself does not change.
      if (creating) await this.#setSticky(trx, post.id, w.sticky === true);
      else if (w.sticky !== undefined) await this.#setSticky(trx, post.id, w.sticky);
    }
    if (w.featuredMedia !== undefined) {
      const mediaId = Math.trunc(w.featuredMedia);
      if (mediaId === 0) changes.featuredMedia = 0;
      else {
        // set_post_thumbnail() only accepts an image attachment; anything else is ignored.
        const media = await this.repo.findById(mediaId, trx);
        if (media && media.type === 'attachment' && media.mimeType.startsWith('image/'))
          changes.featuredMedia = mediaId;
      }
    }
    if (w.format !== undefined && w.format !== '') changes.format = w.format === 'standard' ? '' : w.format;
    if (w.template !== undefined) {
      const valid = !creating || w.template === '' || (w.allowedTemplates ?? []).includes(w.template);
      changes.template = valid ? w.template : '';
    }
    const current = { featuredMedia: post.featuredMedia, format: post.format, template: post.template };
    const real = Object.fromEntries(
      Object.entries(changes).filter(([k, v]) => current[k as keyof typeof current] !== v),
    ) as Partial<PostFields>;
    if (Object.keys(real).length > 0) {
      await this.repo.update(post.id, real, trx);
      wrote = true;
    }
    if (w.meta) {
      for (const [key, value] of Object.entries(w.meta)) {
        if (value === null) await this.repo.deleteMeta(post.id, key, trx);
        else await this.repo.setMeta(post.id, key, value, trx);
        wrote = true;
      }
    }
    void settings;
    return wrote;
  }

  /** _reset_front_page_settings_for_post(): a page shown on the front loses that role; the post is unstuck. */
  async #resetFrontPageSettings(trx: Db, post: Post, settings: ContentSettings): Promise<void> {
    if (post.type === 'page') {
      if (settings.pageOnFront === post.id) {
        await this.#deps.options.set('show_on_front', 'posts', trx);
        await this.#deps.options.set('page_on_front', 0, trx);
      }
      if (settings.pageForPosts === post.id) await this.#deps.options.set('page_for_posts', 0, trx);
    }
    await this.#setSticky(trx, post.id, false);
  }

  /** wp_add_trashed_suffix_to_post_name_for_post(). */
  async #trashedSlug(trx: Db, post: Post): Promise<string> {
    if (post.slug.endsWith('__trashed')) return post.slug;
    await this.repo.setMeta(post.id, '_wp_desired_post_slug', post.slug, trx);
    return `${truncateSlug(post.slug, 191)}__trashed`;
  }

  /** wp_add_trashed_suffix_to_post_name_for_trashed_posts(): a trashed post gives its slug up. */
  async #suffixTrashedWithSlug(trx: Db, slug: string, type: string, excludeId: number): Promise<void> {
    // Asked on every save with a slug, and almost always empty: compiled once.
    const rows = await runShape(
      trx,
      'posts-trashed-with-slug',
      () =>
        trx
          .selectFrom('posts')
          .select('id')
          .where('slug', '=', arg(0))
          .where('status', '=', 'trash')
          .where('type', '=', arg(1))
          .where('id', '!=', arg(2) as unknown as number),
      [slug, type, excludeId],
    );
    for (const row of rows) {
      const trashed = (await this.repo.findById(Number(row.id), trx)) as Post;
      await this.repo.update(trashed.id, { slug: await this.#trashedSlug(trx, trashed) }, trx);
    }
  }

  /** wp_check_post_hierarchy_for_loops(): a parent that would make a loop through this post is refused. */
  async #checkHierarchyLoops(trx: Db, postId: number, parentId: number): Promise<number> {
    if (!parentId) return 0;
    if (parentId === postId) return 0;
    const seen = new Set<number>([postId]);
    let current = parentId;
    while (current > 0) {
      if (seen.has(current)) return current === postId ? 0 : parentId;
      seen.add(current);
      const row = await trx.selectFrom('posts').select('parent_id').where('id', '=', current).executeTakeFirst();
      if (!row) break;
      current = Number(row.parent_id);
      if (current === postId) return 0;
    }
    return parentId;
  }

  /** The slugs of a page's ancestors, root first (for page links). */
  async ancestorSlugs(parentId: number, db: Db = this.db): Promise<string[]> {
    const out: string[] = [];
    const seen = new Set<number>();
    let current = parentId;
    while (current > 0 && !seen.has(current)) {
      seen.add(current);
      const row = await db
        .selectFrom('posts')
        .select(['slug', 'parent_id'])
        .where('id', '=', current)
        .executeTakeFirst();
      if (!row) break;
      out.unshift(row.slug);
      current = Number(row.parent_id);
    }
    return out;
  }

  /**
   * Keeps the counts of a saved post's terms (what #recount would store) by difference: each term it
   * had loses the post if the post counted before, each term it has gains it if it counts now. Cheaper
   * than counting again (which grows with the posts per term), and exact as long as the stored counts
   * were.
   */
  async #updateCounts(
    trx: Db,
    id: number,
    before: Post | null,
    after: Pick<Post, 'type' | 'status' | 'parentId'>,
    added: readonly number[],
    removed: readonly number[],
  ): Promise<void> {
    const was = before !== null && (await this.#countsForTerms(trx, before));
    const is = await this.#countsForTerms(trx, after);
    const deltas = new Map<number, number>();
    const add = (termId: number, delta: number) => deltas.set(termId, (deltas.get(termId) ?? 0) + delta);
    if (was === is) {
      if (!is) return;
      for (const termId of added) add(termId, 1);
      for (const termId of removed) add(termId, -1);
    } else {
      // Every term of the post, before and after, changes by the post's own change.
      const now = before === null ? [...added] : await this.repo.termIdsOf(id, trx);
      const then = new Set(now.filter((termId) => !added.includes(termId)));
      for (const termId of removed) then.add(termId);
      for (const termId of then) if (was) add(termId, -1);
      for (const termId of now) if (is) add(termId, 1);
    }
    await this.#deps.terms.addToCounts(deltas, trx);
  }

  /** Whether a post counts in its terms' counts (the rule of countPublished). */
  async #countsForTerms(trx: Db, post: Pick<Post, 'type' | 'status' | 'parentId'>): Promise<boolean> {
    if (post.status === 'publish') return true;
    if (post.type !== 'attachment' || post.status !== 'inherit' || post.parentId <= 0) return false;
    const parent = await trx.selectFrom('posts').select('status').where('id', '=', post.parentId).executeTakeFirst();
    return parent?.status === 'publish';
  }

  /** Recounts the published posts of terms and stores the counts. */
  async #recount(trx: Db, termIds: readonly number[]): Promise<void> {
    const unique = [...new Set(termIds)];
    if (unique.length === 0) return;
    const counts = await this.repo.countPublished(unique, trx);
    await this.#deps.terms.setCounts(counts, trx);
  }
}

/**
 * A new post's guid (its permalink) computed before its row is inserted, or null when the permalink
 * depends on the id the row will get (plain `?p=` links, `%post_id%` structures).
 */
function guidWithoutId(fields: PostFields, settings: ContentSettings, ancestors: readonly string[]): string | null {
  // A page may be the front page, whose link is the home URL: decided by its id.
  if (fields.type === 'page' && settings.showOnFront === 'page') return null;
  // Built with an id no post has: the link holds it wherever it holds the id (a digit run of the slug
  // that happens to contain it only costs the second write).
  const link = permalink({ ...fields, id: GUID_PROBE_ID, version: 1 }, settings, { ancestors });
  return link.includes(String(-GUID_PROBE_ID)) ? null : link;
}

const GUID_PROBE_ID = -73_019_537;

/**
 * The guid WordPress keeps for a permalink: wp_insert_post() writes it with an update whose failure it
 * ignores, so a permalink longer than the column (a page under long parent slugs) leaves the guid empty.
 */
function storableGuid(permalink: string): string {
  return fitsColumn('posts', 'guid', permalink) ? permalink : '';
}

/** get_default_comment_status(): pages closed; other types by the site's options when they support it. */
export function defaultCommentStatus(type: string, settings: ContentSettings, kind: 'comment' | 'ping'): string {
  if (type === 'page') return 'closed';
  const supports = getPostType(type)?.supports ?? {};
  const feature = kind === 'ping' ? 'trackbacks' : 'comments';
  if (!supports[feature]) return 'closed';
  return kind === 'ping' ? settings.defaultPingStatus : settings.defaultCommentStatus;
}
