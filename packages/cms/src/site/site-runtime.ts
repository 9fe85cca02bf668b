/**
 * The running pieces of the site module (media, menus, blocks, oEmbed, public pages), one per app: the
 * media library (storage, limits, image settings) and the oEmbed proxy are fields so that tests and
 * operators can swap them after start (another storage root, an oEmbed allow-list).
 */
import path from 'node:path';
import { ConfigError } from '@svc/platform';
import type { CmsConfig } from '../config.ts';
import type { ContentRuntime } from '../content/runtime.ts';
import type { MenuItemsController } from '../controllers/menu-items.controller.ts';
import { LocalDiskStorage, MediaLibrary } from '../media/index.ts';
import type { CmsContext } from '../module.ts';
import { AddressPolicy, OEmbedProxy } from '../oembed/index.ts';

export interface SiteRuntime {
  ctx: CmsContext;
  content: ContentRuntime;
  media: MediaLibrary;
  oembed: OEmbedProxy;
  /** The menu items controller, whose wp_setup_nav_menu_item() the site's navigation reuses. */
  menuItems?: MenuItemsController;
}

const runtimes = new WeakMap<CmsContext, SiteRuntime>();

/** The site runtime of an app (tests and benches reach the media library and the oEmbed proxy through it). */
export function siteRuntimeOf(ctx: CmsContext): SiteRuntime | undefined {
  return runtimes.get(ctx);
}

/** The site module's part of the configuration (config.ts), resolved. */
export interface SiteEnvironment {
  /** Largest upload in bytes (`CMS_MAX_UPLOAD_MB`, default 64). */
  maxUploadBytes: number;
  /** Where uploads are stored (`CMS_UPLOADS_DIR`, default DATA_DIR/uploads). */
  uploadsDir: string;
  /** Networks the oEmbed proxy may reach although they are private (`CMS_OEMBED_ALLOW_NETWORKS`, CIDRs). */
  oembedAllowedNetworks: string[];
}

/**
 * Resolves the site module's settings from the validated configuration: the uploads folder under DATA_DIR by
 * default, and the oEmbed allow-list checked network by network (a bad one stops the start with one line).
 */
export function siteEnvironment(
  config: Pick<CmsConfig, 'dataDir' | 'maxUploadMb' | 'uploadsDir' | 'oembedAllowNetworks'>,
): SiteEnvironment {
  const networks = (config.oembedAllowNetworks ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const cidr of networks) {
    // The address policy checks the syntax; fail at start with the variable's name rather than later.
    try {
      new AddressPolicy({ allowedNetworks: [cidr] });
    } catch {
      throw new ConfigError(`Invalid configuration: CMS_OEMBED_ALLOW_NETWORKS has an invalid network "${cidr}"`);
    }
  }
  return {
    maxUploadBytes: Math.floor(config.maxUploadMb * 1024 * 1024),
    uploadsDir: config.uploadsDir ?? path.join(config.dataDir, 'uploads'),
    oembedAllowedNetworks: networks,
  };
}

/** Builds and remembers the site runtime of an app. */
export function createSiteRuntime(ctx: CmsContext, content: ContentRuntime, env: SiteEnvironment): SiteRuntime {
  const runtime: SiteRuntime = {
    ctx,
    content,
    media: new MediaLibrary({
      storage: new LocalDiskStorage({ root: env.uploadsDir, baseUrl: '' }),
      maxUploadBytes: env.maxUploadBytes,
      now: ctx.now,
    }),
    oembed: new OEmbedProxy({ policy: new AddressPolicy({ allowedNetworks: env.oembedAllowedNetworks }) }),
  };
  runtimes.set(ctx, runtime);
  return runtime;
}
