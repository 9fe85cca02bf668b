import type { CmsModule } from '../module.ts';

/** The kernel's own routes: users, application passwords, taxonomies, terms, types, statuses, settings. */
export const coreModule: CmsModule = {
  name: 'core',
  register() {},
};
