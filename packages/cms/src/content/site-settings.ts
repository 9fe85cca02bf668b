/**
 * The site options the content module depends on, read together once per operation.
 */
import type { Kysely } from 'kysely';
import { DEFAULT_OPTIONS, type OptionsRepository } from '../db/options-repository.ts';
import type { CmsDatabase } from '../db/schema.ts';
import { type SiteTimeZone, siteTimeZone } from './dates.ts';
import type { LinkSettings } from './permalinks.ts';

export interface ContentSettings extends LinkSettings {
  zone: SiteTimeZone;
  /** `gmt_offset` in hours (for the modified_gmt shim of floating drafts). */
  gmtOffsetHours: number;
  siteUrl: string;
  defaultCategory: number;
  defaultCommentStatus: string;
  defaultPingStatus: string;
  useSmilies: boolean;
  stickyPosts: number[];
  pageForPosts: number;
}

const NAMES = [
  'timezone_string',
  'gmt_offset',
  'home',
  'siteurl',
  'permalink_structure',
  'default_category',
  'default_comment_status',
  'default_ping_status',
  'use_smilies',
  'sticky_posts',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
] as const;

function asIds(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value.map((v) => Number(v)).filter((n) => Number.isSafeInteger(n) && n > 0);
}

/** Reads the content settings from the options (through the options cache). */
export async function readContentSettings(options: OptionsRepository): Promise<ContentSettings> {
  return settingsFrom(await options.getMany(NAMES));
}

/**
 * Reads the content settings straight from the `options` table through `db` — for code already inside
 * a transaction, which must not wait for the options cache's own connection.
 */
export async function readContentSettingsFrom(db: Kysely<CmsDatabase>): Promise<ContentSettings> {
  const rows = await db
    .selectFrom('options')
    .select(['name', 'value'])
    .where('name', 'in', [...NAMES])
    .execute();
  const o: Record<string, unknown> = {};
  for (const name of NAMES) o[name] = DEFAULT_OPTIONS[name];
  for (const row of rows) {
    try {
      o[row.name] = JSON.parse(row.value);
    } catch {
      o[row.name] = row.value;
    }
  }
  return settingsFrom(o);
}

function settingsFrom(o: Record<string, unknown>): ContentSettings {
  const gmtOffset = Number(o.gmt_offset ?? 0);
  return {
    zone: siteTimeZone(o.timezone_string, o.gmt_offset),
    gmtOffsetHours: Number.isFinite(gmtOffset) ? gmtOffset : 0,
    home: String(o.home ?? '').replace(/\/+$/, ''),
    siteUrl: String(o.siteurl ?? o.home ?? '').replace(/\/+$/, ''),
    permalinkStructure: String(o.permalink_structure ?? '/%postname%/'),
    defaultCategory: Number(o.default_category ?? 1) || 0,
    defaultCommentStatus: String(o.default_comment_status ?? 'open'),
    defaultPingStatus: String(o.default_ping_status ?? 'open'),
    useSmilies: o.use_smilies === undefined ? true : Boolean(o.use_smilies) && o.use_smilies !== '0',
    stickyPosts: asIds(o.sticky_posts),
    showOnFront: String(o.show_on_front ?? 'posts'),
    pageOnFront: Number(o.page_on_front ?? 0) || 0,
    pageForPosts: Number(o.page_for_posts ?? 0) || 0,
  };
}
