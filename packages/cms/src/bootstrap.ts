/**
 * First start: when the database has no user yet, create the administrator and an application password
 * (returned so the caller can print them once), then let every module add its sample content. Every start:
 * the site URL of CMS_SITE_URL.
 */
import { ConfigError, UniqueViolationError } from '@svc/platform';
import type { CmsApp } from './app.ts';
import { createApplicationPassword } from './auth/application-passwords-service.ts';
import { generatePassword } from './auth/passwords.ts';
import { createUser } from './auth/users-service.ts';
import type { CmsConfig } from './config.ts';
import { modules } from './controllers/index.ts';
import { ValueTooLongError } from './db/column-widths.ts';
import { RestError } from './rest/errors.ts';

export interface FirstRunCredentials {
  login: string;
  password: string;
  applicationPassword: string;
}

/** Installs the site when it has no user; returns the new credentials, or null when already installed. */
export async function installIfNeeded(cms: CmsApp, config: CmsConfig): Promise<FirstRunCredentials | null> {
  const { ctx } = cms;
  if ((await ctx.users.count()) > 0) return null;
  const password = generatePassword(24, false);
  let adminId: number;
  try {
    const admin = await createUser(ctx, {
      login: config.adminLogin,
      email: config.adminEmail,
      password,
      roles: ['administrator'],
    });
    adminId = admin.id;
  } catch (err) {
    // Another node installed the site at the same moment.
    if (err instanceof UniqueViolationError) return null;
    // The values come from the configuration: say which variable to change, as for any other bad value.
    if (err instanceof RestError || err instanceof ValueTooLongError) {
      const email = err instanceof RestError ? err.code.includes('email') : err.column === 'email';
      const [name, value] = email ? ['CMS_ADMIN_EMAIL', config.adminEmail] : ['CMS_ADMIN_LOGIN', config.adminLogin];
      throw new ConfigError(
        `Invalid configuration: ${name} ${JSON.stringify(value)} cannot be the first administrator's: ${err.message}`,
      );
    }
    throw err;
  }
  await ctx.options.set('admin_email', config.adminEmail);
  if (config.siteUrl) {
    await ctx.options.set('siteurl', config.siteUrl.replace(/\/+$/, ''));
    await ctx.options.set('home', config.siteUrl.replace(/\/+$/, ''));
  }
  const app = await createApplicationPassword(ctx.appPasswords, ctx.secret, {
    userId: adminId,
    name: 'first-run',
    now: ctx.now(),
  });
  if (config.seedSample) {
    for (const module of modules) await module.seed?.(ctx, { adminId });
  }
  return { login: config.adminLogin, password, applicationPassword: app.password };
}

/**
 * CMS_SITE_URL, when set, is the site's URL from this start on, as WP_HOME and WP_SITEURL are for WordPress:
 * stored as `home` and `siteurl`, so a site moves by changing the variable and restarting. Unset, the stored
 * URL stays (a site that never had one uses the address it listens on).
 */
export async function applySiteUrl(cms: CmsApp, config: CmsConfig): Promise<void> {
  if (!config.siteUrl) return;
  const url = config.siteUrl.replace(/\/+$/, '');
  for (const name of ['home', 'siteurl']) {
    if (!(await cms.ctx.options.isStored(name)) || (await cms.ctx.options.get(name)) !== url) {
      await cms.ctx.options.set(name, url);
    }
  }
}
