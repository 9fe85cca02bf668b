/**
 * First start: when the database has no user yet, create the administrator and an application password
 * (returned so the caller can print them once), then let every module add its sample content.
 */
import { UniqueViolationError } from '@svc/platform';
import type { CmsApp } from './app.ts';
import { createApplicationPassword } from './auth/application-passwords-service.ts';
import { generatePassword } from './auth/passwords.ts';
import { createUser } from './auth/users-service.ts';
import type { CmsConfig } from './config.ts';
import { modules } from './controllers/index.ts';

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
