/**
 * The composition root: `buildApp(deps)` wires repositories, capabilities, authentication, the REST
 * server and every module's routes onto a Fastify app, without listening (server.ts does that; tests
 * use `app.inject()`).
 */
import {
  createHttpApp,
  type Database,
  type Logger,
  registerOpsRoutes,
  WideIntegerComparisonsPlugin,
} from '@svc/platform';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Authenticator } from './auth/authenticate.ts';
import { Capabilities } from './auth/capabilities.ts';
import type { CmsConfig } from './config.ts';
import { modules } from './controllers/index.ts';
import { ApplicationPasswordsRepository } from './db/application-passwords-repository.ts';
import { CacheGenerations } from './db/cache-generations.ts';
import { ValueTooLongError } from './db/column-widths.ts';
import { OptionsRepository } from './db/options-repository.ts';
import type { CmsDatabase } from './db/schema.ts';
import { TermsRepository } from './db/terms-repository.ts';
import { UsersRepository } from './db/users-repository.ts';
import { setWriteConcurrencyHint } from './db/write-transaction.ts';
import { type CmsContext, noContent } from './module.ts';
import { RestError } from './rest/errors.ts';
import { DEFAULT_MAX_BODY_BYTES, mountRestApi } from './rest/http.ts';
import { RestServer } from './rest/server.ts';

export interface BuildAppDeps {
  config: CmsConfig;
  database: Database<CmsDatabase>;
  logger: Logger;
  /** Key for application-password hashes (see resolveSecret). */
  secret: string;
  /** Time source; defaults to the system clock. */
  now?: () => Date;
  /**
   * Whether verified credentials are remembered and options cached (default true; both follow every
   * writer's changes from the next request on). Tests that write to the database behind the app turn them off.
   */
  authCache?: boolean;
  optionsCache?: boolean;
}

/** The running pieces, for tests, the CLI and the seed step. */
export interface CmsApp {
  app: FastifyInstance;
  ctx: CmsContext;
  auth: Authenticator;
  appPasswords: ApplicationPasswordsRepository;
}

/** The ops routes of registerOpsRoutes, which read no cached option or credential. */
const OPS_ROUTE = /^\/(?:healthz|readyz|metrics)(?:[/?]|$)/;

/** Builds the CMS: every module registered, the REST API mounted at /cms-json, ops routes at /healthz etc. */
export async function buildApp(deps: BuildAppDeps): Promise<CmsApp> {
  const { database, logger, config } = deps;
  // PostgreSQL's id columns are 32-bit (serial); WordPress's are bigint, SQLite's integers 64-bit. An id past
  // 2^31 - 1 in a request (`/posts/99999999999`, `?include=...`) is one no item has, on every dialect: the
  // plugin compiles comparisons with such a value so that PostgreSQL does not refuse them.
  const db = database.dialect === 'postgres' ? database.db.withPlugin(new WideIntegerComparisonsPlugin()) : database.db;
  const now = deps.now ?? (() => new Date());
  const generations = new CacheGenerations(db);
  const options = new OptionsRepository(db, {
    cached: deps.optionsCache ?? true,
    generation: () => generations.options,
  });
  const users = new UsersRepository(db);
  const terms = new TermsRepository(db);
  const appPasswords = new ApplicationPasswordsRepository(db);

  // The context is filled in two steps: the capability checker reads `ctx.content` on every call so a
  // module can install its provider during `register`.
  const ctx = {} as CmsContext;
  const caps = new Capabilities({
    content: () => ctx.content,
    option: (name) => options.get(name),
    termTaxonomy: async (id) => (await terms.findById(id))?.taxonomy ?? null,
  });
  const auth = new Authenticator({
    users,
    appPasswords,
    secret: deps.secret,
    now,
    cache: deps.authCache ?? true,
    generation: () => generations.credentials,
  });
  const server = new RestServer({
    apiRoot: async () => `${String(await options.get('home')).replace(/\/+$/, '')}/cms-json/`,
    authenticate: (request) => auth.authenticate(request),
    // A read-only request shares the posts its checks look up (the Allow header alone checks three
    // endpoints of the same post); a write re-reads them, since it may change them between checks.
    can: (user, capability, args, request) =>
      (request?.isReadOnly ? request.local('caps:posts', () => caps.withPostCache(request)) : caps).userCan(
        user,
        capability,
        ...args,
      ),
    siteInfo: async () => {
      const o = await options.getMany([
        'blogname',
        'blogdescription',
        'siteurl',
        'home',
        'gmt_offset',
        'timezone_string',
        'page_for_posts',
        'page_on_front',
        'show_on_front',
      ]);
      return {
        name: o.blogname,
        description: o.blogdescription,
        url: o.siteurl,
        home: o.home,
        gmt_offset: Number(o.gmt_offset),
        timezone_string: o.timezone_string,
        page_for_posts: Number(o.page_for_posts),
        page_on_front: Number(o.page_on_front),
        show_on_front: o.show_on_front,
      };
    },
    // A value longer than its column (src/db/column-widths.ts) is the client's: 400, with WordPress's code
    // for the failed write (WordPress sends it as a 500), and the column and its width.
    mapError: (error) =>
      error instanceof ValueTooLongError
        ? new RestError(error.code, error.message, { status: 400, column: error.column, max_length: error.maxLength })
        : null,
    siteInfoTail: async () => ({
      site_logo: Number(await options.get('site_logo')),
      site_icon: Number(await options.get('site_icon')),
      site_icon_url: '',
    }),
    onError: (err, request) =>
      logger.error({ err, route: request.route, method: request.method }, 'REST handler failed'),
  });
  Object.assign(ctx, {
    config,
    db,
    dialect: database.dialect,
    logger,
    now,
    server,
    caps,
    options,
    users,
    terms,
    appPasswords,
    authenticator: auth,
    secret: deps.secret,
    refreshCacheGenerations: async () => {
      await generations.refresh();
    },
    content: noContent,
  } satisfies CmsContext);

  for (const module of modules) await module.register(ctx);

  const app = createHttpApp({
    logger,
    bodyLimit: 10 * 1024 * 1024,
    requestTimeoutMs: config.requestTimeoutMs,
    responseIdleTimeoutMs: config.responseIdleTimeoutMs,
  });
  // Write transactions start at once when this process serves a single request, and wait a turn of the
  // event loop for others to join their batch otherwise (src/db/write-transaction.ts).
  let inFlight = 0;
  const settled = () => {
    inFlight--;
  };
  setWriteConcurrencyHint(db as Kysely<unknown>, () => inFlight > 1);
  app.addHook('onRequest', (req, reply, done) => {
    inFlight++;
    reply.raw.once('close', settled);
    // Other nodes, workers and the CLI write to the same database: each request first reads the caches'
    // generations (src/db/cache-generations.ts), so options and credentials are never older than the
    // request. The probes and metrics use neither.
    if (OPS_ROUTE.test(req.url)) return done();
    const reading = generations.refresh();
    // refresh() never rejects (an unreadable row only empties the caches for the request).
    if (reading) void reading.then(() => done());
    else done();
  });
  registerOpsRoutes(app, { readiness: () => database.ping(), metricsToken: deps.config.metricsToken });
  // Uploads are whole request bodies: a CMS_MAX_UPLOAD_MB above the default cap raises the cap with it.
  const maxBodyBytes = Math.max(DEFAULT_MAX_BODY_BYTES, Math.floor(config.maxUploadMb * 1024 * 1024));
  await mountRestApi(app, server, { maxBodyBytes, ...(ctx.siteRoot ? { siteRoot: ctx.siteRoot } : {}) });
  for (const module of modules) await module.registerHttp?.(app, ctx);
  return { app, ctx, auth, appPasswords };
}
