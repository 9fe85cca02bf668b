/**
 * The widths of the CMS's `varchar(n)` columns, and the check every repository write makes against them.
 *
 * Why: PostgreSQL refuses a value longer than its column (an error, so a 500), SQLite stores it whole, and
 * WordPress's wpdb refuses it before the query (`process_field_lengths`: the insert or update fails, e.g.
 * `db_insert_error` "Could not insert term into the database."). A value can be longer than its column
 * although the request's field was not: names are stored escaped ("A & B" as "A &amp; B"), slugs get
 * suffixes, URLs are built from several parts. So the repositories check what they are about to write,
 * measured as the databases measure a varchar (characters, i.e. code points, not UTF-16 units), and throw
 * a ValueTooLongError before the statement; the REST layer answers it with a 400 in WordPress's shape.
 *
 * The table must list every varchar column of the migrations with its width: test/column-widths.test.ts
 * compares it with the schema of a freshly migrated store on each dialect.
 */
import type { CmsDatabase } from './schema.ts';

type Widths = { readonly [T in keyof CmsDatabase]?: { readonly [C in keyof CmsDatabase[T]]?: number } };

/** Width in characters of each varchar column, by table (the migrations' `varchar(n)`). */
export const COLUMN_WIDTHS = {
  users: {
    login: 60,
    nicename: 50,
    email: 100,
    url: 100,
    registered: 19,
    display_name: 250,
    display_name_sort: 500,
    locale: 20,
  },
  options: { name: 191 },
  terms: { taxonomy: 32, name: 200, slug: 200, name_sort: 400 },
  application_passwords: { uuid: 36, app_id: 36, password_hash: 64, last_ip: 45 },
  posts: {
    type: 20,
    status: 20,
    slug: 200,
    password: 255,
    date_local: 19,
    date_gmt: 19,
    modified_local: 19,
    modified_gmt: 19,
    comment_status: 20,
    ping_status: 20,
    guid: 255,
    mime_type: 100,
    format: 20,
    template: 255,
    title_sort: 400,
  },
  postmeta: { meta_key: 255 },
} as const satisfies Widths;

export type WidthTable = keyof typeof COLUMN_WIDTHS;

/** What WordPress's messages call a row of each table ("Could not insert term into the database."). */
const SUBJECTS: Record<WidthTable, string> = {
  users: 'user',
  options: 'option',
  terms: 'term',
  application_passwords: 'application password',
  posts: 'post',
  postmeta: 'post meta',
};

/** The length of a string as a database measures a varchar: in characters (code points), not UTF-16 units. */
export function charLength(value: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return value.length - surrogatePairs;
}

/** Whether a string fits its column (a column without a width takes anything). */
export function fitsColumn<T extends WidthTable>(table: T, column: string, value: string): boolean {
  const width = (COLUMN_WIDTHS[table] as Readonly<Record<string, number>>)[column];
  // A string is never shorter in UTF-16 units than in code points: most values need no count.
  return width === undefined || value.length <= width || charLength(value) <= width;
}

/** A write refused before it reached the database: a value is longer than its column. */
export class ValueTooLongError extends Error {
  readonly table: WidthTable;
  readonly column: string;
  /** The column's width in characters. */
  readonly maxLength: number;
  readonly operation: 'insert' | 'update';
  /** What the row is, in WordPress's messages: `term`, `user`, `post`, `attachment`, ... */
  readonly subject: string;

  constructor(table: WidthTable, column: string, maxLength: number, operation: 'insert' | 'update', subject: string) {
    super(
      operation === 'insert'
        ? `Could not insert ${subject} into the database.`
        : `Could not update ${subject} in the database.`,
    );
    this.name = 'ValueTooLongError';
    this.table = table;
    this.column = column;
    this.maxLength = maxLength;
    this.operation = operation;
    this.subject = subject;
  }

  /** WordPress's code for a failed write: `db_insert_error` or `db_update_error`. */
  get code(): string {
    return `db_${this.operation}_error`;
  }
}

/**
 * Throws a ValueTooLongError when a value of a row about to be written (only the columns given) is longer
 * than its column. Repositories call it before every insert and update of a table with widths.
 */
export function checkColumnWidths<T extends WidthTable>(
  table: T,
  values: Readonly<Record<string, unknown>>,
  operation: 'insert' | 'update',
  subject: string = SUBJECTS[table],
): void {
  const widths = COLUMN_WIDTHS[table] as Readonly<Record<string, number>>;
  for (const column in widths) {
    const value = values[column];
    if (typeof value !== 'string') continue;
    const width = widths[column]!;
    if (value.length > width && charLength(value) > width) {
      throw new ValueTooLongError(table, column, width, operation, subject);
    }
  }
}
