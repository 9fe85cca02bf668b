/** Starts the CMS service: configuration, database, app, listening, first-run install. */
import { createLogger, serve } from '@svc/platform';
import { buildApp } from './app.ts';
import { installIfNeeded } from './bootstrap.ts';
import { loadCmsConfig, resolveSecret } from './config.ts';
import { openCmsDatabase } from './db/connection.ts';

/** Runs the service until SIGTERM/SIGINT. */
export async function startCms(): Promise<void> {
  const config = loadCmsConfig();
  const logger = createLogger({ level: config.logLevel, name: 'cms' });
  const secret = resolveSecret(config);
  const database = await openCmsDatabase(config);
  const cms = await buildApp({ config, database, logger, secret });
  const running = await serve(cms.app, {
    host: config.host,
    port: config.port,
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    onShutdown: [() => database.close()],
  });
  const siteUrl = (config.siteUrl ?? running.url).replace(/\/+$/, '');
  cms.ctx.options.setDefault('siteurl', siteUrl);
  cms.ctx.options.setDefault('home', siteUrl);
  const first = await installIfNeeded(cms, config);
  const out = process.stdout;
  out.write(
    `cms: listening on ${running.url} (port ${running.port}); REST API at ${siteUrl}/cms-json/ (${database.location})\n`,
  );
  if (first) {
    out.write('cms: first start, created the administrator (shown once, store it now):\n');
    out.write(`cms:   login                ${first.login}\n`);
    out.write(`cms:   password             ${first.password}\n`);
    out.write(`cms:   application password ${first.applicationPassword}\n`);
    out.write(
      `cms:   try: curl -u '${first.login}:${first.applicationPassword}' ${siteUrl}/cms-json/cms/v2/users/me\n`,
    );
  }
}
