import { permalink } from '../content/permalinks.ts';
import type { Post } from '../content/post.ts';
import { type BlockRenderState, DEFAULT_EXCERPT_LENGTH, EXCERPT_MORE, trimWords } from '../content/render/index.ts';
import type { CachedRenderer } from '../content/render-cache.ts';
import { type ContentRuntime, userCaps } from '../content/runtime.ts';
import type { ContentSettings } from '../content/site-settings.ts';
import { sanitizeTitle } from '../content/slugs.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import {
  type AttachmentMetadata,
  baseName,
  constrainDimensions,
  EDITABLE_IMAGE_TYPES,
  extensionOf,
  type ImageModifier,
  isMediaError,
  type MediaLibrary,
  mediaTypeGroups,
  originalImagePath,
  readImageMeta,
  relativeDir,
} from '../media/index.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { setPaginationHeaders } from '../rest/pagination.ts';
import { isNumeric, isPlainObject, parseList, toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { CREATABLE } from '../rest/route.ts';
import type { JsonSchema, RestArg } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { validateValueFromSchema } from '../rest/validation.ts';
import { listForRest } from '../site/rest-post-list.ts';
import { UPLOADS_PATH } from '../site/router.ts';
import { escHtml, escUrl } from '../site/theme/escape.ts';
import { receiveUpload } from './media-upload.ts';
import { type PostExtras, PostsController, toRestError } from './posts.controller.ts';

/** Meta keys WordPress keeps for an attachment. */
const ATTACHED_FILE = '_wp_attached_file';
const METADATA = '_wp_attachment_metadata';
const ALT_TEXT = '_wp_attachment_image_alt';

/** Extensions `wp_attachment_is( 'image' )` accepts. */
const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'jpe', 'gif', 'png', 'webp', 'avif', 'heic', 'heif']);

/** What a response needs of an attachment besides its post row. */
interface MediaInfo {
  file: string;
  meta: AttachmentMetadata | undefined;
  alt: string;
}

const mediaInfoByExtras = new WeakMap<PostExtras, Map<number, MediaInfo>>();

function forbidden(request: RestRequest, code: string, message: string): RestError {
  return new RestError(code, message, { status: authorizationRequiredCode(request.user.id) });
}

/** The public URL of a file in the uploads folder. */
export function uploadUrl(siteUrl: string, relPath: string): string {
  return `${siteUrl.replace(/\/+$/, '')}${UPLOADS_PATH}/${relPath.split('/').map(encodeURIComponent).join('/')}`;
}

/** `wp_attachment_is_image()`. */
export function isImageAttachment(mime: string, file: string): boolean {
  return mime.startsWith('image/') && IMAGE_EXTENSIONS.has(extensionOf(file));
}

export class MediaController extends PostsController {
  readonly #rt: ContentRuntime;
  readonly #library: () => MediaLibrary;

  /** `library` is read on every call, so a test (or a reconfiguration) can swap the storage. */
  constructor(runtime: ContentRuntime, library: () => MediaLibrary) {
    super(runtime, 'attachment');
    this.#rt = runtime;
    this.#library = library;
  }

  get #media(): MediaLibrary {
    return this.#library();
  }

  // ---- schema and parameters ----

  protected override buildItemSchema(): JsonSchema {
    const schema = super.buildItemSchema();
    const p: Record<string, JsonSchema> = { ...(schema.properties ?? {}) };
    for (const name of ['password', 'content', 'excerpt', 'parent', 'menu_order', 'format', 'sticky']) delete p[name];
    p.alt_text = {
      description: 'Alternative text to display when attachment is not displayed.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
    };
    const noValidation = { sanitizeCallback: false as const, validateCallback: undefined };
    p.caption = {
      description: 'The attachment caption.',
      type: 'object',
      context: ['view', 'edit', 'embed'],
      arg_options: noValidation,
      properties: {
        raw: {
          description: 'Caption for the attachment, as it exists in the database.',
          type: 'string',
          context: ['edit'],
        },
        rendered: {
          description: 'HTML caption for the attachment, transformed for display.',
          type: 'string',
          context: ['view', 'edit', 'embed'],
          readonly: true,
        },
      },
    };
    p.description = {
      description: 'The attachment description.',
      type: 'object',
      context: ['view', 'edit'],
      arg_options: noValidation,
      properties: {
        raw: {
          description: 'Description for the attachment, as it exists in the database.',
          type: 'string',
          context: ['edit'],
        },
        rendered: {
          description: 'HTML description for the attachment, transformed for display.',
          type: 'string',
          context: ['view', 'edit'],
          readonly: true,
        },
      },
    };
    p.media_type = {
      description: 'Attachment type.',
      type: 'string',
      enum: ['image', 'file'],
      context: ['view', 'edit', 'embed'],
      readonly: true,
    };
    p.mime_type = {
      description: 'The attachment MIME type.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    };
    p.media_details = {
      description: 'Details about the media file, specific to its type.',
      type: 'object',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    };
    p.post = {
      description: 'The ID for the associated post of the attachment.',
      type: 'integer',
      context: ['view', 'edit'],
    };
    p.source_url = {
      description: 'URL to the original attachment file.',
      type: 'string',
      format: 'uri',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    };
    p.missing_image_sizes = {
      description: 'List of the missing image sizes of the attachment.',
      type: 'array',
      items: { type: 'string' },
      context: ['edit'],
      readonly: true,
    };
    return { ...schema, properties: p };
  }

  override collectionParams(): Record<string, RestArg> {
    const params = super.collectionParams();
    params.parent = {
      description: 'Limit result set to items with particular parent IDs.',
      type: 'array',
      items: { type: 'integer' },
      default: [],
    };
    params.parent_exclude = {
      description: 'Limit result set to all items except those of a particular parent ID.',
      type: 'array',
      items: { type: 'integer' },
      default: [],
    };
    params.status = {
      default: 'inherit',
      description: 'Limit result set to posts assigned one or more statuses.',
      type: 'array',
      items: { enum: ['inherit', 'private', 'trash'], type: 'string' },
      sanitizeCallback: (value, request, param) => this.#sanitizeStatuses(value, request, param),
    };
    params.media_type = {
      default: null,
      description: 'Limit result set to attachments of a particular media type or media types.',
      type: 'array',
      items: { type: 'string', enum: Object.keys(mediaTypeGroups(this.#media.allowedTypes)) },
    };
    params.mime_type = {
      default: null,
      description: 'Limit result set to attachments of a particular MIME type or MIME types.',
      type: 'array',
      items: { type: 'string' },
    };
    return params;
  }

  /** sanitize_post_statuses() with the attachments' default (`inherit`) needing no rights. */
  #sanitizeStatuses(value: unknown, request: RestRequest, param: string): unknown {
    const statuses = [
      ...new Set(
        parseList(value).map((s) =>
          String(s)
            .toLowerCase()
            .replace(/[^a-z0-9_-]/g, ''),
        ),
      ),
    ];
    const caps = userCaps(this.#rt, request);
    for (const status of statuses) {
      if (status === 'inherit') continue;
      if (caps.has(this.type.cap.edit_posts) || (status === 'private' && caps.has(this.type.cap.read_private_posts))) {
        const valid = validateValueFromSchema(status, { type: 'string', enum: ['inherit', 'private', 'trash'] }, param);
        if (valid !== true) return valid;
      } else {
        return new RestError('rest_forbidden_status', 'Status is forbidden.', {
          status: authorizationRequiredCode(request.user.id),
        });
      }
    }
    return statuses;
  }

  #editArgs(): Record<string, RestArg> {
    const itemArgs = this.endpointArgsForItemSchema(CREATABLE);
    const pick = Object.fromEntries(
      ['caption', 'description', 'title', 'post', 'alt_text']
        .filter((name) => itemArgs[name] !== undefined)
        .map((name) => [name, itemArgs[name] as RestArg]),
    );
    return {
      src: { description: 'URL to the edited image file.', type: 'string', format: 'uri', required: true },
      modifiers: {
        description: 'Array of image edits.',
        type: 'array',
        minItems: 1,
        items: {
          description: 'Image edit.',
          type: 'object',
          required: ['type', 'args'],
          oneOf: [
            {
              title: 'Flip',
              properties: {
                type: { description: 'Flip type.', type: 'string', enum: ['flip'] },
                args: {
                  description: 'Flip arguments.',
                  type: 'object',
                  required: ['flip'],
                  properties: {
                    flip: {
                      description: 'Flip direction.',
                      type: 'object',
                      required: ['horizontal', 'vertical'],
                      properties: {
                        horizontal: { description: 'Whether to flip in the horizontal direction.', type: 'boolean' },
                        vertical: { description: 'Whether to flip in the vertical direction.', type: 'boolean' },
                      },
                    },
                  },
                },
              },
            },
            {
              title: 'Rotation',
              properties: {
                type: { description: 'Rotation type.', type: 'string', enum: ['rotate'] },
                args: {
                  description: 'Rotation arguments.',
                  type: 'object',
                  required: ['angle'],
                  properties: { angle: { description: 'Angle to rotate clockwise in degrees.', type: 'number' } },
                },
              },
            },
            {
              title: 'Crop',
              properties: {
                type: { description: 'Crop type.', type: 'string', enum: ['crop'] },
                args: {
                  description: 'Crop arguments.',
                  type: 'object',
                  required: ['left', 'top', 'width', 'height'],
                  properties: {
                    left: {
                      description:
                        'Horizontal position from the left to begin the crop as a percentage of the image width.',
                      type: 'number',
                    },
                    top: {
                      description:
                        'Vertical position from the top to begin the crop as a percentage of the image height.',
                      type: 'number',
                    },
                    width: { description: 'Width of the crop as a percentage of the image width.', type: 'number' },
                    height: { description: 'Height of the crop as a percentage of the image height.', type: 'number' },
                  },
                },
              },
            },
          ],
        },
      },
      rotation: {
        description: 'The amount to rotate the image clockwise in degrees. DEPRECATED: Use `modifiers` instead.',
        type: 'integer',
        minimum: 0,
        exclusiveMinimum: true,
        maximum: 360,
        exclusiveMaximum: true,
      },
      x: {
        description:
          'As a percentage of the image, the x position to start the crop from. DEPRECATED: Use `modifiers` instead.',
        type: 'number',
        minimum: 0,
        maximum: 100,
      },
      y: {
        description:
          'As a percentage of the image, the y position to start the crop from. DEPRECATED: Use `modifiers` instead.',
        type: 'number',
        minimum: 0,
        maximum: 100,
      },
      width: {
        description:
          'As a percentage of the image, the width to crop the image to. DEPRECATED: Use `modifiers` instead.',
        type: 'number',
        minimum: 0,
        maximum: 100,
      },
      height: {
        description:
          'As a percentage of the image, the height to crop the image to. DEPRECATED: Use `modifiers` instead.',
        type: 'number',
        minimum: 0,
        maximum: 100,
      },
      ...pick,
    };
  }

  // ---- routes ----

  override registerRoutes(server: RestServer): void {
    this.registerCrudRoutes(server, {
      itemReadArgs: { context: this.contextParam({ default: 'view' }) },
      deleteArgs: {
        force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' },
      },
      idDescription: 'Unique identifier for the post.',
    });
    server.registerRoute(this.namespace, `/${this.restBase}/(?P<id>[\\d]+)/post-process`, [
      {
        methods: CREATABLE,
        handler: (r) => this.postProcessItem(r),
        permission: (r) => this.updateItemPermissionsCheck(r),
        args: {
          id: { description: 'Unique identifier for the attachment.', type: 'integer' },
          action: { type: 'string', enum: ['create-image-subsizes'], required: true },
        },
      },
    ]);
    server.registerRoute(this.namespace, `/${this.restBase}/(?P<id>[\\d]+)/edit`, [
      {
        methods: CREATABLE,
        handler: (r) => this.editMediaItem(r),
        permission: (r) => this.editMediaItemPermissionsCheck(r),
        args: this.#editArgs(),
      },
    ]);
  }

  // ---- media facts ----

  async #settings(): Promise<ContentSettings> {
    return this.#rt.service.settings();
  }

  #url(settings: ContentSettings, relPath: string): string {
    return uploadUrl(settings.siteUrl || settings.home, relPath);
  }

  async #mediaInfo(postIds: readonly number[]): Promise<Map<number, MediaInfo>> {
    const meta = await this.#rt.service.repo.meta(postIds, [ATTACHED_FILE, METADATA, ALT_TEXT]);
    const out = new Map<number, MediaInfo>();
    for (const id of postIds) {
      const m = meta.get(id);
      const file = m?.get(ATTACHED_FILE);
      const metadata = m?.get(METADATA);
      const alt = m?.get(ALT_TEXT);
      out.set(id, {
        file: typeof file === 'string' ? file : '',
        meta: isPlainObject(metadata) ? (metadata as AttachmentMetadata) : undefined,
        alt: typeof alt === 'string' ? alt : '',
      });
    }
    return out;
  }

  async #infoFor(post: Post, extras?: PostExtras): Promise<MediaInfo> {
    const cached = extras ? mediaInfoByExtras.get(extras)?.get(post.id) : undefined;
    return cached ?? (await this.#mediaInfo([post.id])).get(post.id) ?? { file: '', meta: undefined, alt: '' };
  }

  override async loadExtras(
    posts: readonly Post[],
    request: RestRequest,
    settings?: ContentSettings,
  ): Promise<PostExtras> {
    const extras = await super.loadExtras(posts, request, settings);
    mediaInfoByExtras.set(extras, await this.#mediaInfo(posts.map((p) => p.id)));
    return extras;
  }

  // ---- reading ----

  override async getItems(request: RestRequest): Promise<RestResponse> {
    const settings = await this.#settings();
    const result = await listForRest({
      runtime: this.#rt,
      type: 'attachment',
      request,
      defaultStatuses: ['inherit'],
      authors: true,
      parents: true,
      mimeTypes: this.#mimeFilter(request),
      fileNameSearch: true,
    });
    // WordPress checks each attachment's readability after the query (the total still counts it).
    const posts: Post[] = [];
    for (const post of result.posts) if (await this.canRead(post, request)) posts.push(post);
    const extras = await this.loadExtras(posts, request, settings);
    const renderState = (await this.#rt.renderer()).inner.newState();
    const items: unknown[] = [];
    for (const post of posts) {
      items.push(
        this.prepareResponseForCollection(await this.prepareItemForResponse(post, request, extras, renderState)),
      );
    }
    const response = new RestResponse(items);
    setPaginationHeaders(
      response,
      request,
      {
        total: result.total,
        perPage: result.perPage,
        page: result.page,
        baseUrl: await this.#rt.ctx.server.url(`/${this.namespace}/${this.restBase}`),
      },
      this.#rt.ctx.server.headerPrefix,
    );
    return response;
  }

  /** The MIME types `media_type` and `mime_type` select (undefined: no filter), as WordPress 6.9 combines them. */
  #mimeFilter(request: RestRequest): string[] | undefined {
    const groups = mediaTypeGroups(this.#media.allowedTypes);
    const out: string[] = [];
    let asked = false;
    const mediaTypes = request.get<unknown>('media_type');
    if (Array.isArray(mediaTypes) && mediaTypes.length > 0) {
      asked = true;
      for (const type of mediaTypes) out.push(...(groups[String(type)] ?? []));
    }
    const mimeTypes = request.get<unknown>('mime_type');
    if (Array.isArray(mimeTypes) && mimeTypes.length > 0) {
      for (const mime of mimeTypes.map(String)) {
        const top = mime.split('/')[0] ?? '';
        if (groups[top]?.includes(mime)) {
          out.push(mime);
          asked = true;
        }
      }
    }
    // Like WordPress, an unknown MIME type alone is ignored rather than matching nothing.
    return asked ? [...new Set(out)] : undefined;
  }

  override async prepareItemForResponse(
    post: Post,
    request: RestRequest,
    extrasIn?: PostExtras,
    renderState?: BlockRenderState,
  ): Promise<RestResponse> {
    const extras = extrasIn ?? (await this.loadExtras([post], request));
    const response = await super.prepareItemForResponse(post, request, extras, renderState);
    const fields = this.fieldsForResponse(request);
    const has = (f: string) => this.isFieldIncluded(f, fields);
    const info = await this.#infoFor(post, extras);
    const settings = extras.settings;
    const renderer = await this.#rt.renderer();
    const data = { ...(response.data as Record<string, unknown>) };
    if (has('description')) {
      const rendered = `${this.#prependAttachment(post, info, settings)}\n${renderer.content(post, renderState)}`;
      data.description = { raw: post.content, rendered };
    }
    if (has('link')) data.link = await this.#attachmentLink(post, settings);
    if (has('permalink_template')) data.permalink_template = `${settings.home}/?attachment_id=${post.id}`;
    if (has('caption'))
      data.caption = { raw: post.excerpt, rendered: this.#caption(post, info, settings, renderer, renderState) };
    if (has('alt_text')) data.alt_text = info.alt;
    if (has('media_type')) data.media_type = isImageAttachment(post.mimeType, info.file) ? 'image' : 'file';
    if (has('mime_type')) data.mime_type = post.mimeType;
    if (has('media_details')) data.media_details = this.#mediaDetails(info, post, settings);
    if (has('post')) data.post = post.parentId > 0 ? post.parentId : null;
    if (has('source_url')) data.source_url = info.file ? this.#url(settings, info.file) : post.guid;
    if (has('missing_image_sizes') && request.context === 'edit') {
      data.missing_image_sizes = info.file
        ? await this.#media.missingSubsizes(info.file, info.meta, post.mimeType)
        : [];
    }
    response.data = this.filterResponseByContext(data, request.context);
    // WordPress gives attachments no revisions link, no attachments-of-this link and no publish action.
    for (const rel of [
      'version-history',
      'predecessor-version',
      'https://api.w.org/attachment',
      'https://api.w.org/action-publish',
    ]) {
      response.links.delete(rel);
    }
    if ((has('_links') || has('_embedded')) && post.parentId > 0) {
      const parent = await this.#rt.service.repo.findById(post.parentId);
      if (parent) {
        const base = parent.type === 'page' ? 'pages' : parent.type === 'post' ? 'posts' : undefined;
        if (base) {
          response.addLink(
            'https://api.w.org/attached-to',
            await this.#rt.ctx.server.url(`/cms/v2/${base}/${parent.id}`),
            {
              embeddable: true,
              post_type: parent.type,
              id: parent.id,
            },
          );
        }
      }
    }
    return response;
  }

  /**
   * get_attachment_link(): under a published parent `{parent link}/{slug}/` (`attachment/{slug}` for a
   * numeric slug), unattached `{home}/{slug}/`, otherwise (plain links, unpublished parent) `?attachment_id=`.
   */
  async #attachmentLink(post: Post, settings: ContentSettings): Promise<string> {
    const plain = `${settings.home}/?attachment_id=${post.id}`;
    if (settings.permalinkStructure === '' || post.slug === '') return plain;
    const trailing = settings.permalinkStructure.endsWith('/') ? '/' : '';
    if (post.parentId > 0 && post.parentId !== post.id) {
      const parent = await this.#rt.service.repo.findById(post.parentId);
      if (parent && (parent.type === 'post' || parent.type === 'page')) {
        const ancestors = parent.type === 'page' ? await this.#rt.service.ancestorSlugs(parent.parentId) : [];
        const parentLink = permalink(parent, settings, { ancestors, canReadPrivate: false });
        if (parentLink.includes('?')) return plain;
        const name =
          /^\d+$/.test(post.slug) || settings.permalinkStructure.includes('%category%')
            ? `attachment/${post.slug}`
            : post.slug;
        return `${parentLink.replace(/\/?$/, '/')}${name}${trailing}`;
      }
    }
    return `${settings.home}/${post.slug}${trailing}`;
  }

  /**
   * prepend_attachment(): the attachment page shows the medium-size image (with its srcset) linked to the
   * file, or a link to the file named by the title.
   */
  #prependAttachment(post: Post, info: MediaInfo, settings: ContentSettings): string {
    const fileUrl = info.file ? this.#url(settings, info.file) : post.guid;
    const meta = info.meta;
    if (!info.file || !meta?.width || !meta.height || !isImageAttachment(post.mimeType, info.file)) {
      const text = post.title !== '' ? post.title : escHtml(baseName(info.file).replace(/\.[^.]+$/, ''));
      return `<p class="attachment"><a href='${escUrl(fileUrl)}'>${text}</a></p>`;
    }
    const dir = relativeDir(info.file);
    const sizeUrl = (file: string) => this.#url(settings, dir ? `${dir}/${file}` : file);
    const medium = meta.sizes?.medium;
    const width = medium?.width ?? meta.width;
    const height = medium?.height ?? meta.height;
    const src = medium ? sizeUrl(medium.file) : fileUrl;
    // wp_calculate_image_srcset(): sizes of the same aspect ratio up to 2048 px wide, the full size last.
    const sources = new Map<number, string>();
    const candidates = [
      ...Object.values(meta.sizes ?? {}).map((s) => ({ url: sizeUrl(s.file), width: s.width, height: s.height })),
      { url: fileUrl, width: meta.width, height: meta.height },
    ];
    for (const c of candidates) {
      if (c.width > 2048 || sources.has(c.width)) continue;
      const [cw, ch] = constrainDimensions(c.width, c.height, width);
      const [ew, eh] = constrainDimensions(width, height, c.width);
      const sameRatio =
        (Math.abs(cw - width) <= 1 && Math.abs(ch - height) <= 1) ||
        (Math.abs(ew - c.width) <= 1 && Math.abs(eh - c.height) <= 1);
      if (sameRatio) sources.set(c.width, c.url);
    }
    const srcset =
      sources.size > 1
        ? ` srcset="${[...sources].map(([w, url]) => `${escUrl(url)} ${w}w`).join(', ')}" sizes="(max-width: ${width}px) 100vw, ${width}px"`
        : '';
    const img = `<img width="${width}" height="${height}" src="${escUrl(src)}" class="attachment-medium size-medium" alt="${escHtml(info.alt)}" decoding="async" loading="lazy"${srcset} />`;
    return `<p class="attachment"><a href='${escUrl(fileUrl)}'>${img}</a></p>`;
  }

  /**
   * The caption's `rendered` value: the caption through the excerpt filters, or, when there is none, an
   * excerpt generated from what the attachment page shows (prepend_attachment() and the description), so
   * a file without a caption shows its link text as WordPress does.
   */
  #caption(
    post: Post,
    info: MediaInfo,
    settings: ContentSettings,
    renderer: CachedRenderer,
    state?: BlockRenderState,
  ): string {
    if (post.excerpt.trim() !== '') return renderer.excerpt(post, undefined, state);
    const page = `${this.#prependAttachment(post, info, settings)}\n${renderer.content(post, state)}`.replaceAll(
      ']]>',
      ']]&gt;',
    );
    return renderer.inner.excerptFilters(trimWords(page, DEFAULT_EXCERPT_LENGTH, EXCERPT_MORE));
  }

  /** `media_details`: the stored metadata with each size's URL and a `full` entry, as the REST API shows it. */
  #mediaDetails(info: MediaInfo, post: Post, settings: ContentSettings): Record<string, unknown> {
    const meta = info.meta;
    if (!meta || Object.keys(meta).length === 0) return {};
    const details: Record<string, unknown> = JSON.parse(JSON.stringify(meta));
    const sizes = meta.sizes ?? {};
    if (Object.keys(sizes).length > 0) {
      const dir = relativeDir(info.file);
      const out: Record<string, unknown> = {};
      for (const [name, size] of Object.entries(sizes)) {
        const { 'mime-type': mime, ...rest } = size;
        out[name] = {
          ...rest,
          ...(mime !== undefined ? { mime_type: mime } : {}),
          source_url: this.#url(settings, dir ? `${dir}/${size.file}` : size.file),
        };
      }
      if (info.file) {
        out.full = {
          file: baseName(info.file),
          width: meta.width,
          height: meta.height,
          mime_type: post.mimeType,
          source_url: this.#url(settings, info.file),
        };
      }
      details.sizes = out;
    } else {
      details.sizes = {};
    }
    return details;
  }

  // ---- create ----

  override async createItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    const base = await super.createItemPermissionsCheck(request);
    if (base !== true) return base;
    if (!(await request.can('upload_files'))) {
      return new RestError('rest_cannot_create', 'Sorry, you are not allowed to upload media on this site.', {
        status: 400,
      });
    }
    const post = toInt(request.get('post'));
    if (post > 0 && !(await request.can('edit_post', post))) {
      return forbidden(request, 'rest_cannot_edit', 'Sorry, you are not allowed to upload media to this post.');
    }
    return true;
  }

  /** Refuses a `post` that is a revision or an attachment (`Invalid parent type.`). */
  async #checkParentType(request: RestRequest): Promise<void> {
    const id = toInt(request.get('post'));
    if (id <= 0) return;
    const parent = await this.#rt.service.repo.findById(id);
    if (parent && (parent.type === 'revision' || parent.type === 'attachment')) {
      throw new RestError('rest_invalid_param', 'Invalid parent type.', { status: 400 });
    }
  }

  override async prepareItemForDatabase(request: RestRequest, existing: Post | null, settings: ContentSettings) {
    const write = await super.prepareItemForDatabase(request, existing, settings);
    const text = (name: string): string | undefined => {
      const value = request.get(name);
      if (typeof value === 'string') return value;
      if (isPlainObject(value) && typeof value.raw === 'string') return value.raw;
      return undefined;
    };
    const caption = text('caption');
    if (caption !== undefined) write.excerpt = caption;
    const description = text('description');
    if (description !== undefined) write.content = description;
    const post = request.get('post');
    if (post !== undefined && post !== null) write.parentId = toInt(post);
    if (write.status !== undefined && !['inherit', 'private', 'trash'].includes(write.status)) write.status = 'inherit';
    const alt = request.get('alt_text');
    if (typeof alt === 'string') write.meta = { ...(write.meta ?? {}), [ALT_TEXT]: alt };
    return write;
  }

  override async createItem(request: RestRequest): Promise<RestResponse> {
    await this.#checkParentType(request);
    const upload = receiveUpload(request);
    let stored: Awaited<ReturnType<MediaLibrary['storeUpload']>>;
    try {
      stored = await this.#media.storeUpload(upload.bytes, upload.filename);
    } catch (error) {
      throw this.#uploadError(error, upload.via);
    }
    const settings = await this.#settings();
    let post: Post;
    try {
      const write = await this.prepareItemForDatabase(request, null, settings);
      // Image EXIF/IPTC title and caption are defaults when the request gives none.
      const imageMeta = stored.mime.startsWith('image/') ? await readImageMeta(upload.bytes, stored.mime) : undefined;
      if (write.title === undefined && imageMeta?.title.trim() && !isNumeric(sanitizeTitle(imageMeta.title))) {
        write.title = imageMeta.title;
      }
      if (write.excerpt === undefined && imageMeta?.caption.trim()) write.excerpt = imageMeta.caption;
      write.title ??= stored.title;
      write.mimeType = stored.mime;
      write.status ??= 'inherit';
      write.meta = { ...(write.meta ?? {}), [ATTACHED_FILE]: stored.file };
      // The file's URL, written with the row (wp_insert_attachment): one too long for the column refuses the
      // insert (db_insert_error) rather than leaving an attachment behind.
      write.guid = this.#url(settings, stored.file);
      const caps = userCaps(this.#rt, request);
      // Caption, description and title go through kses for a user without unfiltered_html, as a post's do:
      // an author's upload must not carry script into the REST `rendered` values or the attachment page.
      post = await this.#rt.service.create('attachment', write, {
        actorId: request.user.id,
        canPublish: caps.has(this.type.cap.publish_posts),
        unfilteredHtml: caps.has('unfiltered_html'),
      });
    } catch (error) {
      // No attachment refers to the stored file: do not leave it behind.
      await this.#media.deleteFiles(stored.file, undefined);
      throw toRestError(error);
    }
    // As in WordPress, sub-sizes are made after the attachment exists: if this fails, `post-process`
    // (create-image-subsizes) can finish the job.
    await this.#saveMetadata(post.id, await this.#media.generateMetadata(stored.file, stored.mime), stored.file);
    request.set('context', 'edit');
    const response = await this.prepareItemForResponse(await this.getPost(post.id), request);
    response.status = 201;
    response.header('Location', await this.#rt.ctx.server.url(`/${this.namespace}/${this.restBase}/${post.id}`));
    response.header(`${this.#rt.ctx.server.headerPrefix}-Upload-Attachment-ID`, post.id);
    return response;
  }

  /** Stores generated metadata; a scaled or rotated copy becomes the attached file. */
  async #saveMetadata(postId: number, meta: AttachmentMetadata, uploadedFile: string): Promise<void> {
    const repo = this.#rt.service.repo;
    await writeTransaction(this.#rt.ctx.db, async (trx) => {
      await repo.setMeta(postId, METADATA, meta, trx);
      if (meta.file && meta.file !== uploadedFile) await repo.setMeta(postId, ATTACHED_FILE, meta.file, trx);
    });
  }

  #uploadError(error: unknown, via: 'multipart' | 'raw'): unknown {
    if (!isMediaError(error)) return error;
    if (error.code === 'upload_type_not_allowed' || error.code === 'upload_type_mismatch') {
      return new RestError(
        via === 'multipart' ? 'rest_upload_unknown_error' : 'rest_upload_sideload_error',
        error.message,
        {
          status: 400,
        },
      );
    }
    return new RestError(error.code, error.message, { status: error.status });
  }

  // ---- update and delete ----

  override async updateItem(request: RestRequest): Promise<RestResponse> {
    await this.#checkParentType(request);
    return super.updateItem(request);
  }

  override async deleteItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.getPost(request.get('id'));
    if (!request.get('force')) return super.deleteItem(request);
    const info = await this.#infoFor(post);
    const response = await super.deleteItem(request);
    // Force delete removes the file, every size and the original of a scaled image.
    if (info.file) await this.#media.deleteFiles(info.file, info.meta);
    return response;
  }

  // ---- post-process and edit ----

  async postProcessItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.getPost(request.get('id'));
    if (request.get('action') === 'create-image-subsizes') {
      const info = await this.#infoFor(post);
      if (!info.file) throw new RestError('invalid_attachment', 'The attached file cannot be found.', { status: 500 });
      const meta = await this.#media.createMissingSubsizes(info.file, info.meta, post.mimeType);
      await this.#saveMetadata(post.id, meta, info.file);
    }
    request.set('context', 'edit');
    return this.prepareItemForResponse(await this.getPost(post.id), request);
  }

  async editMediaItemPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (!(await request.can('upload_files'))) {
      return forbidden(request, 'rest_cannot_edit_image', 'Sorry, you are not allowed to upload media on this site.');
    }
    return this.updateItemPermissionsCheck(request);
  }

  /** The modifiers of an edit request: `modifiers`, else the deprecated `rotation` and `x/y/width/height`. */
  #modifiers(request: RestRequest): ImageModifier[] {
    const given = request.get<unknown>('modifiers');
    if (Array.isArray(given)) {
      return given.map((m) => {
        const item = m as { type: string; args: Record<string, unknown> };
        if (item.type === 'flip') {
          const flip = (item.args.flip ?? {}) as Record<string, unknown>;
          return {
            type: 'flip',
            args: { flip: { horizontal: Boolean(flip.horizontal), vertical: Boolean(flip.vertical) } },
          };
        }
        if (item.type === 'rotate') return { type: 'rotate', args: { angle: Number(item.args.angle) } };
        return {
          type: 'crop',
          args: {
            left: Number(item.args.left),
            top: Number(item.args.top),
            width: Number(item.args.width),
            height: Number(item.args.height),
          },
        };
      });
    }
    const modifiers: ImageModifier[] = [];
    const rotation = toInt(request.get('rotation'));
    if (rotation) modifiers.push({ type: 'rotate', args: { angle: rotation } });
    const crop = ['x', 'y', 'width', 'height'].map((k) => request.get(k));
    if (crop.every((v) => v !== undefined && v !== null)) {
      const [left, top, width, height] = crop.map(Number) as [number, number, number, number];
      modifiers.push({ type: 'crop', args: { left, top, width, height } });
    }
    if (modifiers.length === 0) {
      throw new RestError(
        'rest_image_not_edited',
        'The image was not edited. Edit the image before applying the changes.',
        {
          status: 400,
        },
      );
    }
    return modifiers;
  }

  async editMediaItem(request: RestRequest): Promise<RestResponse> {
    const original = await this.getPost(request.get('id'));
    const info = await this.#infoFor(original);
    if (!info.meta || !info.file || !isImageAttachment(original.mimeType, info.file)) {
      throw new RestError('rest_unknown_attachment', 'Unable to get meta information for file.', { status: 404 });
    }
    if (!EDITABLE_IMAGE_TYPES.includes(original.mimeType)) {
      throw new RestError('rest_cannot_edit_file_type', 'This type of file cannot be edited.', { status: 400 });
    }
    const modifiers = this.#modifiers(request);
    let copy: Awaited<ReturnType<MediaLibrary['editImage']>>;
    try {
      copy = await this.#media.editImage({
        file: info.file,
        meta: info.meta,
        mime: original.mimeType,
        src: String(request.get('src') ?? ''),
        modifiers,
      });
    } catch (error) {
      if (isMediaError(error)) throw new RestError(error.code, error.message, { status: error.status });
      throw error;
    }
    const settings = await this.#settings();
    const text = (name: string): string | undefined => {
      const value = request.get(name);
      if (typeof value === 'string') return value;
      if (isPlainObject(value) && typeof value.raw === 'string') return value.raw;
      return undefined;
    };
    const alt = request.get('alt_text');
    const metadata: AttachmentMetadata = {
      ...copy.metadata,
      parent_image: { attachment_id: original.id, file: originalImagePath(info.file, info.meta) },
    };
    let post: Post;
    try {
      post = await this.#rt.service.create(
        'attachment',
        {
          title: text('title') ?? original.title ?? copy.title,
          excerpt: text('caption') ?? original.excerpt,
          content: text('description') ?? original.content,
          parentId: toInt(request.get('post')),
          status: 'inherit',
          mimeType: copy.mime,
          guid: this.#url(settings, copy.file),
          meta: {
            [ATTACHED_FILE]: copy.file,
            [METADATA]: metadata,
            ...(typeof alt === 'string' ? { [ALT_TEXT]: alt } : info.alt ? { [ALT_TEXT]: info.alt } : {}),
          },
        },
        {
          actorId: request.user.id,
          canPublish: userCaps(this.#rt, request).has(this.type.cap.publish_posts),
          unfilteredHtml: userCaps(this.#rt, request).has('unfiltered_html'),
        },
      );
    } catch (err) {
      await this.#media.deleteFiles(copy.file, copy.metadata);
      throw toRestError(err);
    }
    const response = await this.prepareItemForResponse(await this.getPost(post.id), request);
    response.status = 201;
    response.header('Location', await this.#rt.ctx.server.url(`/${this.namespace}/${this.restBase}/${post.id}`));
    response.header(`${this.#rt.ctx.server.headerPrefix}-Upload-Attachment-ID`, post.id);
    return response;
  }
}
