/**
 * The modules that make up the CMS, in registration order. Each module adds its routes, providers,
 * migrations and seed data (see ../module.ts). Add ONE line per module.
 */
import { contentModule } from '../content/module.ts';
import type { CmsModule } from '../module.ts';
import { oembedModule, siteModule } from '../site/site-module.ts';
import { coreModule } from './core-module.ts';

export const modules: CmsModule[] = [oembedModule, coreModule, contentModule, siteModule];
