/**
 * `npx cms ...`: serve, migrate, backup, users create, app-passwords create. Failures end with one line on
 * stderr and a non-zero exit status.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BackupError, createLogger, describeConfig, migrateToLatest, openDatabase, runCli } from '@svc/platform';
import { Command, Option } from 'commander';
import { buildApp, type CmsApp } from './app.ts';
import { createApplicationPassword } from './auth/application-passwords-service.ts';
import { generatePassword } from './auth/passwords.ts';
import { ROLE_NAMES } from './auth/roles.ts';
import { createUser } from './auth/users-service.ts';
import { backupCms } from './backup.ts';
import { cmsConfigSpec, loadCmsConfig, resolveSecret, sqliteFile } from './config.ts';
import { ValueTooLongError } from './db/column-widths.ts';
import { allMigrations, MIGRATION_TABLE, openCmsDatabase } from './db/connection.ts';
import type { CmsDatabase } from './db/schema.ts';
import { RestError } from './rest/errors.ts';
import { startCms } from './serve.ts';

/** Opens the database and builds the app, runs `work`, closes everything. */
async function withCms<T>(work: (cms: CmsApp) => Promise<T>): Promise<T> {
  const config = loadCmsConfig();
  const database = await openCmsDatabase(config);
  try {
    const cms = await buildApp({
      config,
      database,
      logger: createLogger({ level: 'silent' }),
      secret: resolveSecret(config),
    });
    return await work(cms);
  } finally {
    await database.close();
  }
}

/** A RestError (or a value too long for its column) as a CLI message (WordPress's messages may hold markup). */
function explain(err: unknown): never {
  if (err instanceof RestError) throw new Error(`${err.message.replace(/<[^>]+>/g, '')} (${err.code})`);
  if (err instanceof ValueTooLongError) {
    throw new Error(`${err.message} (${err.code}: ${err.column} is longer than ${err.maxLength} characters)`);
  }
  throw err;
}

const program = new Command('cms')
  .description('The partner-site CMS: a WordPress-compatible REST API at /cms-json')
  .addHelpText('after', `\nEnvironment:\n${describeConfig(cmsConfigSpec)}`);

program
  .command('serve')
  .description('start the CMS (creates the administrator and prints its credentials on first start)')
  .action(async () => {
    await startCms();
  });

program
  .command('migrate')
  .description('apply pending database migrations and list them')
  .action(async () => {
    const config = loadCmsConfig();
    const database = await openDatabase<CmsDatabase>(
      config.databaseUrl ? { url: config.databaseUrl } : { sqliteFile: sqliteFile(config) },
    );
    try {
      const applied = await migrateToLatest(database.db, allMigrations(), MIGRATION_TABLE);
      for (const name of applied) process.stdout.write(`applied ${name}\n`);
      process.stdout.write(`${database.location}: up to date (${Object.keys(allMigrations()).length} migrations)\n`);
    } finally {
      await database.close();
    }
  });

program
  .command('backup')
  .description(
    'copy the site into a new folder while it runs: the SQLite store (checked), the secret key and the uploads (PostgreSQL: the database with pg_dump)',
  )
  .requiredOption('--out <folder>', 'a folder that does not exist yet (its parent must)')
  .action(async (opts: { out: string }) => {
    const config = loadCmsConfig();
    // Opening a store creates it: a mistyped DATA_DIR made a new empty site and "backed it up" with status 0.
    if (!config.databaseUrl && !existsSync(sqliteFile(config))) {
      throw new BackupError(`no site in ${path.resolve(config.dataDir)} (no cms.db there): is DATA_DIR right?`);
    }
    const database = await openCmsDatabase(config);
    try {
      const r = await backupCms(config, database, opts.out);
      const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
      process.stdout.write(
        [
          `backed up the site to ${r.folder}:`,
          r.databaseBytes === null
            ? `  database   not copied: it is on PostgreSQL, back it up with pg_dump`
            : `  database   cms.db, ${mb(r.databaseBytes)}, integrity checked`,
          r.secretCopied
            ? '  secret     cms-secret.key'
            : '  secret     not copied: it is CMS_SECRET, keep it with the backup (application passwords need it)',
          `  uploads    ${r.uploads.files} file${r.uploads.files === 1 ? '' : 's'}, ${mb(r.uploads.bytes)}`,
          '',
        ].join('\n'),
      );
    } finally {
      await database.close();
    }
  });

const users = program.command('users').description('manage users');
users
  .command('create <login>')
  .description('create a user; prints the generated password when --password is not given')
  .addOption(new Option('--role <role>', 'role of the user').choices([...ROLE_NAMES]).default('subscriber'))
  .requiredOption('--email <email>', 'email address')
  .option('--password <password>', 'login password (generated when absent)')
  .action(async (login: string, options: { role: string; email: string; password?: string }) => {
    if (options.password !== undefined && options.password.trim() === '') {
      throw new Error('--password is empty: give a password, or leave the option out to have one generated');
    }
    await withCms(async (cms) => {
      const password = options.password ?? generatePassword(24, false);
      const user = await createUser(cms.ctx, { login, email: options.email, password, roles: [options.role] }).catch(
        explain,
      );
      process.stdout.write(`created user ${user.login} (id ${user.id}, role ${options.role})\n`);
      if (!options.password) process.stdout.write(`password: ${password}\n`);
    });
  });

const appPasswords = program.command('app-passwords').description('manage application passwords');
appPasswords
  .command('create <login> <name>')
  .description('create an application password for a user and print it (shown only once)')
  .action(async (login: string, name: string) => {
    await withCms(async (cms) => {
      const user = await cms.ctx.users.findByLogin(login);
      if (!user) throw new Error(`no user with login ${JSON.stringify(login)}`);
      const created = await createApplicationPassword(cms.ctx.appPasswords, cms.ctx.secret, {
        userId: user.id,
        name,
        now: new Date(),
      }).catch(explain);
      process.stdout.write(
        `application password "${name}" for ${login} (uuid ${created.row.uuid}):\n${created.password}\n`,
      );
    });
  });

await runCli(program);
