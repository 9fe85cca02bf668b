/**
 * A post of any type as the content module works with it (WP_Post): the row of the `posts` table with
 * camel-case names.
 */
import type { Insertable, Selectable } from 'kysely';
import { nameSortKey } from '../db/sort-key.ts';
import type { PostsTable } from './schema.ts';

export interface Post {
  id: number;
  type: string;
  status: string;
  authorId: number;
  parentId: number;
  menuOrder: number;
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  password: string;
  /** `YYYY-MM-DD HH:MM:SS` in the site's zone. */
  dateLocal: string;
  /** `YYYY-MM-DD HH:MM:SS` in GMT; `0000-00-00 00:00:00` while a draft's date floats. */
  dateGmt: string;
  modifiedLocal: string;
  modifiedGmt: string;
  commentStatus: string;
  pingStatus: string;
  commentCount: number;
  guid: string;
  mimeType: string;
  /** Post format; '' for standard. */
  format: string;
  template: string;
  featuredMedia: number;
  /** Incremented on every write. */
  version: number;
}

/** The writable columns of a post. */
export type PostFields = Omit<Post, 'id' | 'version'>;

export type PostRow = Selectable<PostsTable>;

/** A database row as a Post. */
export function toPost(row: PostRow): Post {
  return {
    id: Number(row.id),
    type: row.type,
    status: row.status,
    authorId: Number(row.author_id),
    parentId: Number(row.parent_id),
    menuOrder: Number(row.menu_order),
    title: row.title,
    content: row.content,
    excerpt: row.excerpt,
    slug: row.slug,
    password: row.password,
    dateLocal: row.date_local,
    dateGmt: row.date_gmt,
    modifiedLocal: row.modified_local,
    modifiedGmt: row.modified_gmt,
    commentStatus: row.comment_status,
    pingStatus: row.ping_status,
    commentCount: Number(row.comment_count),
    guid: row.guid,
    mimeType: row.mime_type,
    format: row.format,
    template: row.template,
    featuredMedia: Number(row.featured_media),
    version: Number(row.version),
  };
}

const COLUMNS: Record<keyof PostFields, keyof PostsTable> = {
  type: 'type',
  status: 'status',
  authorId: 'author_id',
  parentId: 'parent_id',
  menuOrder: 'menu_order',
  title: 'title',
  content: 'content',
  excerpt: 'excerpt',
  slug: 'slug',
  password: 'password',
  dateLocal: 'date_local',
  dateGmt: 'date_gmt',
  modifiedLocal: 'modified_local',
  modifiedGmt: 'modified_gmt',
  commentStatus: 'comment_status',
  pingStatus: 'ping_status',
  commentCount: 'comment_count',
  guid: 'guid',
  mimeType: 'mime_type',
  format: 'format',
  template: 'template',
  featuredMedia: 'featured_media',
};

/** Post fields as column values (only the fields present). */
export function toRow(fields: Partial<PostFields>): Partial<Insertable<PostsTable>> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const column = COLUMNS[key as keyof PostFields];
    if (column !== undefined && value !== undefined) row[column] = value;
  }
  // Every write of a title goes through here (the repository's insert and update), so its key goes with it.
  if (typeof fields.title === 'string') row.title_sort = nameSortKey(fields.title);
  return row as Partial<Insertable<PostsTable>>;
}

/** The column behind a post field. */
export function columnOf(field: keyof PostFields): keyof PostsTable {
  return COLUMNS[field];
}

/**
 * What a list reads of each post to key its cached item and decide on its access and links: the text
 * columns (content, excerpt) are read only for the posts whose item is not cached.
 */
export type PostKey = Pick<
  Post,
  'id' | 'version' | 'type' | 'status' | 'authorId' | 'parentId' | 'password' | 'slug' | 'title'
>;

/** The columns of a PostKey. */
export const POST_KEY_COLUMNS = [
  'id',
  'version',
  'type',
  'status',
  'author_id',
  'parent_id',
  'password',
  'slug',
  'title',
] as const satisfies ReadonlyArray<keyof PostsTable>;

/** A row of POST_KEY_COLUMNS as a PostKey. */
export function toPostKey(row: Pick<PostRow, (typeof POST_KEY_COLUMNS)[number]>): PostKey {
  return {
    id: Number(row.id),
    version: Number(row.version),
    type: row.type,
    status: row.status,
    authorId: Number(row.author_id),
    parentId: Number(row.parent_id),
    password: row.password,
    slug: row.slug,
    title: row.title,
  };
}
