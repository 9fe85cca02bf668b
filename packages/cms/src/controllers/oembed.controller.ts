/**
 * /oembed/1.0/embed and /oembed/1.0/proxy — after WP_oEmbed_Controller. `embed` answers for this site's
 * own posts (JSON, or XML with `format=xml`), sized by `maxwidth`; `proxy` fetches oEmbed data of other
 * sites for users who may edit posts, through the SSRF-safe proxy (provider list, discovery, cache).
 */
import type { Post } from '../content/post.ts';
import type { AttachmentMetadata } from '../media/index.ts';
import { oembedResponseForPost, toOEmbedXml } from '../oembed/index.ts';
import { absintArg, RestController } from '../rest/controller.ts';
import { authorizationRequiredCode, RestError } from '../rest/errors.ts';
import { toInt } from '../rest/php.ts';
import type { RestRequest } from '../rest/request.ts';
import { RestResponse } from '../rest/response.ts';
import { allowPublic, READABLE } from '../rest/route.ts';
import type { JsonSchema } from '../rest/schema.ts';
import type { RestServer } from '../rest/server.ts';
import { UPLOADS_PATH } from '../site/router.ts';
import type { SiteRuntime } from '../site/site-runtime.ts';
import type { SiteService } from '../site/site-service.ts';

/** `oembed_default_width`. */
const DEFAULT_WIDTH = 600;

export class OEmbedController extends RestController {
  readonly namespace = 'oembed/1.0';
  readonly restBase = '';

  readonly #site: () => SiteRuntime;
  readonly #service: () => SiteService;

  /** The site pieces are looked up per request: the oEmbed routes are registered before the site module runs. */
  constructor(site: () => SiteRuntime, service: () => SiteService) {
    super();
    this.#site = site;
    this.#service = service;
  }

  get site(): SiteRuntime {
    return this.#site();
  }

  get service(): SiteService {
    return this.#service();
  }

  protected buildItemSchema(): JsonSchema {
    return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'oembed', type: 'object', properties: {} };
  }

  registerRoutes(server: RestServer): void {
    server.registerRoute(this.namespace, '/embed', [
      {
        methods: READABLE,
        handler: (r) => this.getItem(r),
        permission: allowPublic,
        args: {
          url: {
            description: 'The URL of the resource for which to fetch oEmbed data.',
            required: true,
            type: 'string',
            format: 'uri',
          },
          format: {
            default: 'json',
            sanitizeCallback: (value) => (value === 'xml' ? 'xml' : 'json'),
          },
          maxwidth: { default: DEFAULT_WIDTH, sanitizeCallback: absintArg },
        },
      },
    ]);
    server.registerRoute(this.namespace, '/proxy', [
      {
        methods: READABLE,
        handler: (r) => this.getProxyItem(r),
        permission: (r) => this.proxyPermissionsCheck(r),
        args: {
          url: {
            description: 'The URL of the resource for which to fetch oEmbed data.',
            required: true,
            type: 'string',
            format: 'uri',
          },
          format: { description: 'The oEmbed format to use.', type: 'string', default: 'json', enum: ['json', 'xml'] },
          maxwidth: {
            description: 'The maximum width of the embed frame in pixels.',
            type: 'integer',
            default: DEFAULT_WIDTH,
            sanitizeCallback: absintArg,
          },
          maxheight: {
            description: 'The maximum height of the embed frame in pixels.',
            type: 'integer',
            sanitizeCallback: absintArg,
          },
          discover: {
            description: 'Whether to perform an oEmbed discovery request for unsanctioned providers.',
            type: 'boolean',
            default: true,
          },
        },
      },
    ]);
  }

  /** get_oembed_response_data() for one of this site's posts. */
  async #responseFor(post: Post, width: number): Promise<Record<string, unknown>> {
    const settings = await this.service.settings();
    const renderer = await this.site.content.renderer();
    const author = await this.site.ctx.users.findById(post.authorId);
    const thumbnailId = post.type === 'attachment' ? post.id : post.featuredMedia;
    return oembedResponseForPost(
      {
        titleHtml: renderer.title(post),
        permalink: await this.service.permalinkOf(post, settings),
        ...(author
          ? { author: { name: author.display_name, url: settings.links.authorLink(author.id, author.nicename) } }
          : {}),
        thumbnail: thumbnailId > 0 ? await this.#imageSizes(thumbnailId, settings.siteUrl || settings.home) : [],
        isVideo: post.type === 'attachment' && post.mimeType.startsWith('video/'),
      },
      { name: settings.name, homeUrl: settings.links.home('/') },
      width,
    );
  }

  /** The sizes of an image attachment (full size included), for the thumbnail fields. */
  async #imageSizes(id: number, siteUrl: string): Promise<Array<{ url: string; width: number; height: number }>> {
    const repo = this.site.content.service.repo;
    const attachment = await repo.findById(id);
    if (attachment?.type !== 'attachment' || !attachment.mimeType.startsWith('image/')) return [];
    const file = await repo.getMeta(id, '_wp_attached_file');
    const meta = (await repo.getMeta(id, '_wp_attachment_metadata')) as AttachmentMetadata | undefined;
    if (typeof file !== 'string' || !meta?.width || !meta.height) return [];
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    const url = (rel: string) => `${siteUrl}${UPLOADS_PATH}/${rel.split('/').map(encodeURIComponent).join('/')}`;
    const sizes = Object.values(meta.sizes ?? {}).map((s) => ({
      url: url(dir ? `${dir}/${s.file}` : s.file),
      width: s.width,
      height: s.height,
    }));
    return [...sizes, { url: url(file), width: meta.width, height: meta.height }];
  }

  async getItem(request: RestRequest): Promise<RestResponse> {
    const post = await this.service.urlToPost(String(request.get('url') ?? ''));
    if (!post) throw new RestError('oembed_invalid_url', 'Not Found', { status: 404 });
    const data = await this.#responseFor(post, toInt(request.get('maxwidth')));
    const response = new RestResponse(data);
    if (request.get('format') === 'xml') {
      response.raw = { contentType: 'text/xml; charset=UTF-8', body: toOEmbedXml(data) };
    }
    return response;
  }

  async proxyPermissionsCheck(request: RestRequest): Promise<true | RestError> {
    if (!(await request.can('edit_posts'))) {
      return new RestError('rest_forbidden', 'Sorry, you are not allowed to make proxied oEmbed requests.', {
        status: authorizationRequiredCode(request.user.id),
      });
    }
    return true;
  }

  async getProxyItem(request: RestRequest): Promise<RestResponse> {
    const url = String(request.get('url') ?? '');
    const maxwidth = toInt(request.get('maxwidth'));
    const maxheightParam = request.get('maxheight');
    // Short-circuit for URLs of this site (get_oembed_response_data_for_url).
    const local = await this.service.urlToPost(url);
    if (local) return new RestResponse(await this.#responseFor(local, maxwidth));
    const data = await this.site.oembed.lookup({
      url,
      maxwidth,
      ...(maxheightParam !== undefined && maxheightParam !== null ? { maxheight: toInt(maxheightParam) } : {}),
      discover: request.get('discover') !== false,
      format: request.get('format') === 'xml' ? 'xml' : 'json',
    });
    if (!data) throw new RestError('oembed_invalid_url', 'Not Found', { status: 404 });
    return new RestResponse(data);
  }
}
