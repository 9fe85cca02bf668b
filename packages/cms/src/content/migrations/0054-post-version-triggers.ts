import { dialectOf } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A post's `version` changes whenever anything its REST item is built from changes, enforced by the
 * database so no code path can forget: every update of the row (unless the statement already bumps it),
 * every insert, update or delete of its meta or term relationships, and the renaming of one of its terms
 * (a post's term ids are listed in name order). Per-process caches of prepared items and rendered output
 * are keyed by (id, version), so they cannot serve what another statement or process changed.
 */
export const m0054PostVersionTriggers: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async up(db: Kysely<any>) {
    if (dialectOf(db) === 'sqlite') {
      // SQLite cannot assign NEW in a BEFORE trigger: an AFTER trigger bumps a row whose update left the
      // version alone (its own update changes the version, so it does not fire again).
      await sql`create trigger posts_version_bump after update on posts for each row
        when new.version = old.version begin
        update posts set version = old.version + 1 where id = new.id;
      end`.execute(db);
      for (const [table, column] of [
        ['postmeta', 'post_id'],
        ['term_relationships', 'object_id'],
      ] as const) {
        await sql`create trigger ${sql.id(`${table}_version_insert`)} after insert on ${sql.id(table)} begin
          update posts set version = version + 1 where id = new.${sql.id(column)};
        end`.execute(db);
        await sql`create trigger ${sql.id(`${table}_version_delete`)} after delete on ${sql.id(table)} begin
          update posts set version = version + 1 where id = old.${sql.id(column)};
        end`.execute(db);
        await sql`create trigger ${sql.id(`${table}_version_update`)} after update on ${sql.id(table)} begin
          update posts set version = version + 1 where id in (old.${sql.id(column)}, new.${sql.id(column)});
        end`.execute(db);
      }
      await sql`create trigger terms_version_rename after update of name, taxonomy on terms for each row
        when new.name is not old.name or new.taxonomy is not old.taxonomy begin
        update posts set version = version + 1
          where id in (select object_id from term_relationships where term_id = new.id);
      end`.execute(db);
      return;
    }
    await sql`create function posts_version_bump() returns trigger language plpgsql as $$
      begin
        if new.version is not distinct from old.version then new.version := old.version + 1; end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger posts_version_bump before update on posts
      for each row execute function posts_version_bump()`.execute(db);
    for (const [table, column] of [
      ['postmeta', 'post_id'],
      ['term_relationships', 'object_id'],
    ] as const) {
      const fn = `${table}_version_bump`;
      await sql`create function ${sql.id(fn)}() returns trigger language plpgsql as $$
        begin
          if tg_op in ('INSERT', 'UPDATE') then
            update posts set version = version + 1 where id = new.${sql.id(column)};
          end if;
          if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.${sql.id(column)} <> new.${sql.id(column)}) then
            update posts set version = version + 1 where id = old.${sql.id(column)};
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger ${sql.id(fn)} after insert or update or delete on ${sql.id(table)}
        for each row execute function ${sql.id(fn)}()`.execute(db);
    }
    await sql`create function terms_version_rename() returns trigger language plpgsql as $$
      begin
        if new.name is distinct from old.name or new.taxonomy is distinct from old.taxonomy then
          update posts set version = version + 1
            where id in (select object_id from term_relationships where term_id = new.id);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger terms_version_rename after update on terms
      for each row execute function terms_version_rename()`.execute(db);
  },
  // biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
  async down(db: Kysely<any>) {
    const triggers: Array<[string, string]> = [
      ['posts_version_bump', 'posts'],
      ['terms_version_rename', 'terms'],
    ];
    const sqlite = dialectOf(db) === 'sqlite';
    if (sqlite) {
      for (const table of ['postmeta', 'term_relationships']) {
        for (const op of ['insert', 'delete', 'update']) triggers.push([`${table}_version_${op}`, table]);
      }
      for (const [name] of triggers) await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
      return;
    }
    triggers.push(['postmeta_version_bump', 'postmeta'], ['term_relationships_version_bump', 'term_relationships']);
    for (const [name, table] of triggers) {
      await sql`drop trigger if exists ${sql.id(name)} on ${sql.id(table)}`.execute(db);
      await sql`drop function if exists ${sql.id(name)}()`.execute(db);
    }
  },
};
