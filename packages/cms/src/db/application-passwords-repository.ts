/** Application passwords of users (WP_Application_Passwords storage). */
import type { Kysely, Selectable } from 'kysely';
import { checkColumnWidths } from './column-widths.ts';
import type { ApplicationPasswordsTable, CmsDatabase } from './schema.ts';

export type ApplicationPasswordRow = Selectable<ApplicationPasswordsTable>;

export class ApplicationPasswordsRepository {
  constructor(private readonly db: Kysely<CmsDatabase>) {}

  async listForUser(userId: number): Promise<ApplicationPasswordRow[]> {
    return this.db
      .selectFrom('application_passwords')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created', 'asc')
      .orderBy('uuid', 'asc')
      .execute();
  }

  async find(userId: number, uuid: string): Promise<ApplicationPasswordRow | null> {
    return (
      (await this.db
        .selectFrom('application_passwords')
        .selectAll()
        .where('user_id', '=', userId)
        .where('uuid', '=', uuid)
        .executeTakeFirst()) ?? null
    );
  }

  async nameExists(userId: number, name: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('application_passwords')
      .select('uuid')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(row: ApplicationPasswordRow): Promise<void> {
    checkColumnWidths('application_passwords', row, 'insert');
    await this.db.insertInto('application_passwords').values(row).execute();
  }

  async rename(userId: number, uuid: string, name: string): Promise<void> {
    await this.db
      .updateTable('application_passwords')
      .set({ name })
      .where('user_id', '=', userId)
      .where('uuid', '=', uuid)
      .execute();
  }

  async recordUse(uuid: string, at: number, ip: string | null): Promise<void> {
    checkColumnWidths('application_passwords', { last_ip: ip }, 'update');
    await this.db
      .updateTable('application_passwords')
      .set({ last_used: at, last_ip: ip })
      .where('uuid', '=', uuid)
      .execute();
  }

  async delete(userId: number, uuid: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('application_passwords')
      .where('user_id', '=', userId)
      .where('uuid', '=', uuid)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async deleteAll(userId: number): Promise<number> {
    const res = await this.db.deleteFrom('application_passwords').where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
