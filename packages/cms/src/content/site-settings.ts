/**
 * The site options the content module depends on, read together once per operation.
 */
import type { OptionsRepository } from '../db/options-repository.ts';
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

/** Reads the content settings from the options. */
export async function readContentSettings(options: OptionsRepository): Promise<ContentSettings> {
  const o = await options.getMany(NAMES);
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
