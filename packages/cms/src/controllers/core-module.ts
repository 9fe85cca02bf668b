import type { CmsModule } from '../module.ts';
import { ApplicationPasswordsController } from './application-passwords.controller.ts';
import { SettingsController } from './settings.controller.ts';
import { StatusesController } from './statuses.controller.ts';
import { TaxonomiesController } from './taxonomies.controller.ts';
import { TermsController } from './terms.controller.ts';
import { TypesController } from './types.controller.ts';
import { UsersController } from './users.controller.ts';

/**
 * The kernel's own cms/v2 routes, registered in WordPress's order (create_initial_rest_routes): types,
 * statuses, taxonomies, terms, users, settings. application passwords follow users, as in
 * WordPress.
 */
export const coreModule: CmsModule = {
  name: 'core',
  register(ctx) {
    new TypesController(ctx).registerRoutes(ctx.server);
    new StatusesController(ctx).registerRoutes(ctx.server);
    new TaxonomiesController(ctx).registerRoutes(ctx.server);
    new TermsController(ctx, 'category').registerRoutes(ctx.server);
    new TermsController(ctx, 'post_tag').registerRoutes(ctx.server);
    new UsersController(ctx).registerRoutes(ctx.server);
    new ApplicationPasswordsController(ctx, ctx.appPasswords, ctx.authenticator, ctx.secret).registerRoutes(ctx.server);
    new SettingsController(ctx).registerRoutes(ctx.server);
  },
};
