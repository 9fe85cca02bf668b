/**
 * The content module's running pieces, shared by its controllers: the service, the cached renderer,
 * the scheduler, the per-type registered meta keys and templates, and the helpers that answer
 * capability questions for a request.
 */
import { withBlockCapabilities } from '../auth/capabilities.ts';
import type { CmsContext } from '../module.ts';
import type { RestRequest } from '../rest/request.ts';
import type { ContentService } from './content-service.ts';
import type { ItemJsonCache } from './item-cache.ts';
import type { CachedRenderer } from './render-cache.ts';
import type { FutureScheduler } from './scheduler.ts';

/** A meta key registered for REST (register_post_meta with show_in_rest). */
export interface RegisteredMeta {
  key: string;
  type: 'boolean' | 'string' | 'integer' | 'number';
  default: unknown;
  description: string;
}

export interface ContentRuntime {
  ctx: CmsContext;
  service: ContentService;
  /** The renderer for the current rendering settings (rebuilt when they change). */
  renderer(): Promise<CachedRenderer>;
  scheduler: FutureScheduler;
  /** Registered REST meta keys per post type. */
  meta: Record<string, RegisteredMeta[]>;
  /** Page templates per post type (the theme's custom templates). */
  templates: Record<string, string[]>;
  /** The JSON of prepared post items, shared by the posts and pages routes of this process. */
  itemCache: ItemJsonCache;
}

const capsByRequest = new WeakMap<RestRequest, ReadonlySet<string>>();

/**
 * The primitive capabilities a request's user holds (WP_User::$allcaps, plus the block capabilities their
 * post ones give, as map_meta_cap() maps them), computed once per request.
 */
export function userCaps(runtime: ContentRuntime, request: RestRequest): ReadonlySet<string> {
  let caps = capsByRequest.get(request);
  if (!caps) {
    caps = withBlockCapabilities(runtime.ctx.caps.allCaps(request.user));
    capsByRequest.set(request, caps);
  }
  return caps;
}
