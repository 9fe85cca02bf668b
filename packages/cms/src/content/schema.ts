/**
 * The content tables (posts of every type, their meta and their terms), added to the CMS's table map.
 * Dates are WordPress's `YYYY-MM-DD HH:MM:SS` strings: `*_local` in the site's time zone, `*_gmt` in
 * GMT (`0000-00-00 00:00:00` for a draft whose date floats).
 */
import type { Generated } from 'kysely';

/** wp_posts: posts, pages, revisions, autosaves (and attachments and other types). */
export interface PostsTable {
  id: Generated<number>;
  type: string;
  status: string;
  author_id: number;
  parent_id: number;
  menu_order: number;
  title: string;
  /** title's sort key (src/db/sort-key.ts), written with the title by the post repository (toRow). */
  title_sort: Generated<string>;
  content: string;
  excerpt: string;
  /** `post_name`. Empty for drafts until they are published. */
  slug: string;
  password: string;
  date_local: string;
  date_gmt: string;
  modified_local: string;
  modified_gmt: string;
  comment_status: string;
  ping_status: string;
  comment_count: number;
  guid: string;
  mime_type: string;
  /** The post format slug (`aside`, `gallery`, ...); empty for `standard`. */
  format: string;
  /** The page template (`_wp_page_template`); empty for the default. */
  template: string;
  /** The featured image's attachment id (`_thumbnail_id`); 0 for none. */
  featured_media: number;
  /** Incremented by every write; rendered output is cached under (id, version). */
  version: number;
}

/** wp_postmeta. Values are JSON. */
export interface PostmetaTable {
  id: Generated<number>;
  post_id: number;
  meta_key: string;
  meta_value: string;
}

/** wp_term_relationships: the terms (of any taxonomy) assigned to a post. */
export interface TermRelationshipsTable {
  object_id: number;
  term_id: number;
  term_order: number;
}

declare module '../db/schema.ts' {
  interface CmsTables {
    posts: PostsTable;
    postmeta: PostmetaTable;
    term_relationships: TermRelationshipsTable;
  }
}
