import type { ImageMeta } from './image-meta.ts';

/** One generated sub-size in `_wp_attachment_metadata` (WordPress's key spelling: `mime-type`). */
export interface SubsizeMeta {
  file: string;
  width: number;
  height: number;
  'mime-type': string;
  filesize: number;
}

/**
 * `_wp_attachment_metadata`: for images the full size (`file` relative to the uploads root), its sub-sizes
 * and EXIF/IPTC data; for other files just `filesize`. An edited copy records the image it came from.
 */
export interface AttachmentMetadata {
  width?: number;
  height?: number;
  file?: string;
  filesize?: number;
  sizes?: Record<string, SubsizeMeta>;
  image_meta?: ImageMeta;
  /** Base name of the uploaded original when the full size is a `-scaled` or `-rotated` copy. */
  original_image?: string;
  parent_image?: { attachment_id: number; file: string };
}

/** The folder part of a relative media path (`2026/11`), or '' for a file at the root. */
export function relativeDir(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash === -1 ? '' : relPath.slice(0, slash);
}

/** The file name part of a relative media path. */
export function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1);
}

/** A file name joined to a relative folder. */
export function joinRelative(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** `wp_get_original_image_path()`: the uploaded original, which differs from the attached file after scaling. */
export function originalImagePath(attachedFile: string, meta: AttachmentMetadata | undefined): string {
  return meta?.original_image ? joinRelative(relativeDir(attachedFile), meta.original_image) : attachedFile;
}

/**
 * Every stored file of an attachment (`wp_delete_attachment_files`): the attached file, each sub-size, the
 * original of a scaled image. Duplicates removed.
 */
export function attachmentFiles(attachedFile: string, meta: AttachmentMetadata | undefined): string[] {
  const dir = relativeDir(attachedFile);
  const files = new Set<string>([attachedFile]);
  for (const size of Object.values(meta?.sizes ?? {})) if (size?.file) files.add(joinRelative(dir, size.file));
  if (meta?.original_image) files.add(joinRelative(dir, meta.original_image));
  return [...files];
}
