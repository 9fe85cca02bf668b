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
import { RevisionsController } from '../controllers/revisions.controller.ts';
import { TermsController } from '../controllers/terms.controller.ts';
import type { CmsModule } from '../module.ts';
import { createSiteRuntime, siteEnvironment } from './site-runtime.ts';

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
    const site = createSiteRuntime(ctx, content, siteEnvironment(ctx.config.dataDir));
    new MediaController(content, () => site.media).registerRoutes(ctx.server);
    const menuItems = new MenuItemsController(content);
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
    new MenuLocationsController(ctx).registerRoutes(ctx.server);
  },
};
