/**
 * The site module (issue 7 of the CMS): media, menus and menu items, menu locations, reusable blocks,
 * oEmbed, and the public site. It builds on the content module's runtime (posts, rendering) and adds
 * its routes after the content routes, as WordPress registers them.
 */
import { contentRuntimeOf } from '../content/module.ts';
import { AutosavesController } from '../controllers/autosaves.controller.ts';
import { BlocksController } from '../controllers/blocks.controller.ts';
import { MediaController } from '../controllers/media.controller.ts';
import { MenuItemsController } from '../controllers/menu-items.controller.ts';
import { MenuLocationsController } from '../controllers/menu-locations.controller.ts';
import { MenusController } from '../controllers/menus.controller.ts';
import { OEmbedController } from '../controllers/oembed.controller.ts';
import { RevisionsController } from '../controllers/revisions.controller.ts';
import { TermsController } from '../controllers/terms.controller.ts';
import type { CmsModule } from '../module.ts';
import { registerSiteHttp, siteHandler } from './site-http.ts';
import { createSiteRuntime, siteEnvironment, siteRuntimeOf } from './site-runtime.ts';
import { SiteService } from './site-service.ts';

const services = new WeakMap<object, SiteService>();

/** The public-site service of an app (tests and benches render pages through it). */
export function siteServiceOf(ctx: object): SiteService | undefined {
  return services.get(ctx);
}

/** Meta keys the spec lists for media and menu items (those of posts without `footnotes`). */
const MEDIA_META = [
  { key: '_cf_changed', type: 'boolean' as const, default: false, description: '' },
  { key: 'inline_featured_image', type: 'boolean' as const, default: false, description: '' },
];

export const siteModule: CmsModule = {
  name: 'site',
  register(ctx) {
    const content = contentRuntimeOf(ctx);
    if (!content) throw new Error('The site module needs the content module registered before it');
    content.meta.attachment ??= MEDIA_META;
    content.meta.nav_menu_item ??= MEDIA_META;
    const site = createSiteRuntime(ctx, content, siteEnvironment(ctx.config));
    new MediaController(content, () => site.media).registerRoutes(ctx.server);
    const menuItems = new MenuItemsController(content);
    site.menuItems = menuItems;
    const service = new SiteService(site);
    services.set(ctx, service);
    ctx.siteRoot = siteHandler(service);
    menuItems.registerRoutes(ctx.server);
    // Menu items have autosaves (not revisions) in WordPress; the revisions controller only lends its shape.
    new AutosavesController(content, menuItems, new RevisionsController(content, menuItems)).registerRoutes(ctx.server);
    new MenusController(ctx).registerRoutes(ctx.server);
    const blocks = new BlocksController(content);
    const blockRevisions = new RevisionsController(content, blocks);
    blocks.registerRoutes(ctx.server);
    blockRevisions.registerRoutes(ctx.server);
    new AutosavesController(content, blocks, blockRevisions).registerRoutes(ctx.server);
    new TermsController(ctx, 'cms_pattern_category').registerRoutes(ctx.server);
  },
  async registerHttp(app, ctx) {
    const service = services.get(ctx);
    if (service && siteRuntimeOf(ctx)) await registerSiteHttp(app, service);
    new MenuLocationsController(ctx).registerRoutes(ctx.server);
  },
};

/**
 * The oEmbed routes, registered first so that `oembed/1.0` leads the index's namespaces as in WordPress;
 * they reach the site module's pieces at request time.
 */
export const oembedModule: CmsModule = {
  name: 'oembed',
  register(ctx) {
    const need = <T>(value: T | undefined): T => {
      if (value === undefined) throw new Error('The site module is not registered');
      return value;
    };
    new OEmbedController(
      () => need(siteRuntimeOf(ctx)),
      () => need(services.get(ctx)),
    ).registerRoutes(ctx.server);
  },
};
