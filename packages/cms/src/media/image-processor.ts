import sharp, { type Sharp } from 'sharp';
import {
  type AttachmentMetadata,
  baseName,
  joinRelative,
  originalImagePath,
  relativeDir,
} from './attachment-metadata.ts';
import { MediaError } from './errors.ts';
import { readImageMeta } from './image-meta.ts';
import {
  BIG_IMAGE_THRESHOLD_PX,
  DEFAULT_IMAGE_SIZES,
  type ImageSizeDefinition,
  resizeDimensions,
  subsizeCreationOrder,
} from './image-sizes.ts';
import type { MediaStorage } from './storage.ts';

/** Image types the processor can decode and encode (WordPress's `file_is_displayable_image` minus BMP/ICO). */
export const PROCESSABLE_IMAGE_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
];

/** Settings of the image pipeline. */
export interface ImageProcessorOptions {
  /** Registered sub-sizes; WordPress's defaults when omitted. */
  sizes?: Readonly<Record<string, ImageSizeDefinition>>;
  /** Big-image threshold in pixels, or false to never scale originals. */
  bigImageThresholdPx?: number | false;
  /** Encoder quality for JPEG (WordPress: 82). */
  jpegQuality?: number;
  /** Encoder quality for WebP (WordPress: 86). */
  webpQuality?: number;
  /** Encoder quality for AVIF. */
  avifQuality?: number;
}

/** Largest image (in pixels) decoded once and shared by all sub-sizes. */
const SHARED_DECODE_MAX_PX = 40_000_000;

/** Whether an image type gets sub-sizes. */
export function isProcessableImage(mime: string): boolean {
  return PROCESSABLE_IMAGE_TYPES.includes(mime);
}

/** Decodes an image; pixel limits guard against decompression bombs. */
function load(bytes: Uint8Array): Sharp {
  return sharp(bytes, { failOn: 'error', limitInputPixels: 268_402_689 });
}

/** Encodes in the source format with WordPress's qualities. */
function encode(image: Sharp, mime: string, options: ImageProcessorOptions): Sharp {
  switch (mime) {
    case 'image/jpeg':
      return image.jpeg({ quality: options.jpegQuality ?? 82 });
    case 'image/png':
      // Filtered, maximum deflate: lossless like WordPress's Imagick settings, and far smaller than the default.
      return image.png({ compressionLevel: 9, adaptiveFiltering: true });
    case 'image/gif':
      return image.gif();
    case 'image/webp':
      return image.webp({ quality: options.webpQuality ?? 86 });
    case 'image/avif':
      return image.avif({ quality: options.avifQuality ?? 60 });
    default:
      throw new MediaError('rest_cannot_edit_file_type', 'This type of file cannot be edited.', 400);
  }
}

/** Orientations that swap width and height when applied. */
function swapsAxes(orientation: number | undefined): boolean {
  return orientation !== undefined && orientation >= 5 && orientation <= 8;
}

/**
 * Writes a generated file. Its name was reserved by the unique-name rules (no upload may take a name ending
 * in `-WxH`, `-scaled` or `-rotated` of another file's base), so an existing file there is a leftover of
 * this attachment and is replaced.
 */
async function writeGenerated(storage: MediaStorage, relPath: string, data: Uint8Array): Promise<void> {
  try {
    await storage.create(relPath, data);
  } catch (error) {
    if (!(error instanceof MediaError) || error.code !== 'file_exists') throw error;
    await storage.remove(relPath);
    await storage.create(relPath, data);
  }
}

/** `{name}-{suffix}.{ext}` next to a file (`WP_Image_Editor::generate_filename`). */
export function generatedName(relFile: string, suffix: string): string {
  const name = baseName(relFile);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return joinRelative(relativeDir(relFile), ext ? `${stem}-${suffix}.${ext}` : `${stem}-${suffix}`);
}

/**
 * `wp_create_image_subsizes()`: reads the image's size and EXIF/IPTC data, replaces an image larger than
 * the big-image threshold by a `-scaled` copy (PNGs excepted, as in WordPress) or an EXIF-rotated image by a
 * `-rotated` copy, keeping the upload as `original_image`, then makes every registered sub-size that fits
 * from the upright original. Returns the attachment metadata; `file` is the attached file to store.
 */
export async function createImageSubsizes(
  storage: MediaStorage,
  relFile: string,
  mime: string,
  options: ImageProcessorOptions = {},
): Promise<AttachmentMetadata> {
  const bytes = await storage.read(relFile);
  const info = await load(bytes).metadata();
  const width = info.width ?? 0;
  const height = info.height ?? 0;
  let meta: AttachmentMetadata = {
    width,
    height,
    file: relFile,
    filesize: bytes.byteLength,
    sizes: {},
    image_meta: await readImageMeta(bytes, mime),
  };
  if (!isProcessableImage(mime) || width === 0 || height === 0) return meta;

  const orientation = info.orientation ?? 1;
  const threshold = options.bigImageThresholdPx ?? BIG_IMAGE_THRESHOLD_PX;

  if (mime !== 'image/png' && threshold && (width > threshold || height > threshold)) {
    const plan = resizeDimensions(width, height, threshold, threshold, false);
    if (plan) {
      const scaled = await encode(
        load(bytes).resize(plan.width, plan.height, { fit: 'fill' }).autoOrient(),
        mime,
        options,
      ).toBuffer({ resolveWithObject: true });
      const scaledPath = generatedName(relFile, 'scaled');
      await writeGenerated(storage, scaledPath, scaled.data);
      meta = replaceOriginal(meta, relFile, scaledPath, scaled.info.width, scaled.info.height, scaled.data.byteLength);
      if (orientation !== 1 && meta.image_meta && meta.image_meta.orientation !== '0')
        meta.image_meta.orientation = '1';
    }
  } else if (orientation !== 1) {
    const rotated = await encode(load(bytes).autoOrient(), mime, options).toBuffer({ resolveWithObject: true });
    const rotatedPath = generatedName(relFile, 'rotated');
    await writeGenerated(storage, rotatedPath, rotated.data);
    meta = replaceOriginal(
      meta,
      relFile,
      rotatedPath,
      rotated.info.width,
      rotated.info.height,
      rotated.data.byteLength,
    );
    if (meta.image_meta && meta.image_meta.orientation !== '0') meta.image_meta.orientation = '1';
  }

  return makeSubsizes(storage, meta, relFile, mime, bytes, options);
}

function replaceOriginal(
  meta: AttachmentMetadata,
  originalPath: string,
  newPath: string,
  width: number,
  height: number,
  filesize: number,
): AttachmentMetadata {
  return { ...meta, width, height, file: newPath, filesize, original_image: baseName(originalPath) };
}

/**
 * `_wp_make_subsizes()`: creates the registered sizes missing from `meta.sizes` from the original image
 * (`originalBytes`, upright per its EXIF orientation), named `{original}-{W}x{H}.{ext}`, and returns the
 * metadata with them added in creation order.
 */
export async function makeSubsizes(
  storage: MediaStorage,
  meta: AttachmentMetadata,
  originalFile: string,
  mime: string,
  originalBytes?: Uint8Array,
  options: ImageProcessorOptions = {},
): Promise<AttachmentMetadata> {
  const registered = options.sizes ?? DEFAULT_IMAGE_SIZES;
  const sizes = { ...(meta.sizes ?? {}) };
  const wanted = subsizeCreationOrder(registered).filter((name) => !(name in sizes));
  if (wanted.length === 0 || !isProcessableImage(mime)) return { ...meta, sizes };

  const bytes = originalBytes ?? (await storage.read(originalFile));
  const info = await load(bytes).metadata();
  const swap = swapsAxes(info.orientation);
  const fullWidth = (swap ? info.height : info.width) ?? 0;
  const fullHeight = (swap ? info.width : info.height) ?? 0;
  // Decode and orient once when the pixels fit comfortably in memory; each size then starts from the same
  // upright pixels. Very large originals are decoded per size instead (JPEG shrink-on-load keeps that cheap).
  const shared =
    fullWidth * fullHeight <= SHARED_DECODE_MAX_PX
      ? await load(bytes).autoOrient().raw().toBuffer({ resolveWithObject: true })
      : undefined;
  const start = (): Sharp =>
    shared
      ? sharp(shared.data, {
          raw: { width: shared.info.width, height: shared.info.height, channels: shared.info.channels },
        })
      : load(bytes).autoOrient();

  for (const name of wanted) {
    const size = registered[name];
    if (!size) continue;
    const plan = resizeDimensions(fullWidth, fullHeight, size.width, size.height, size.crop);
    if (!plan) continue;
    let pipeline = start();
    if (plan.srcX !== 0 || plan.srcY !== 0 || plan.srcWidth !== fullWidth || plan.srcHeight !== fullHeight) {
      pipeline = pipeline.extract({ left: plan.srcX, top: plan.srcY, width: plan.srcWidth, height: plan.srcHeight });
    }
    pipeline = pipeline.resize(plan.width, plan.height, { fit: 'fill' });
    const out = await encode(pipeline, mime, options).toBuffer();
    const relPath = generatedName(originalFile, `${plan.width}x${plan.height}`);
    await writeGenerated(storage, relPath, out);
    sizes[name] = {
      file: baseName(relPath),
      width: plan.width,
      height: plan.height,
      'mime-type': mime,
      filesize: out.byteLength,
    };
  }
  return { ...meta, sizes };
}

/**
 * `wp_get_missing_image_subsizes()`: registered sizes that fit the original image but are not in the
 * metadata (an upload interrupted before all sizes were made).
 */
export async function missingImageSubsizes(
  storage: MediaStorage,
  attachedFile: string,
  meta: AttachmentMetadata | undefined,
  mime: string,
  options: ImageProcessorOptions = {},
): Promise<string[]> {
  if (!mime.startsWith('image/')) return [];
  const registered = options.sizes ?? DEFAULT_IMAGE_SIZES;
  if (!meta || Object.keys(meta).length === 0) return Object.keys(registered);
  let width = meta.width ?? 0;
  let height = meta.height ?? 0;
  if (meta.original_image) {
    try {
      const info = await load(await storage.read(originalImagePath(attachedFile, meta))).metadata();
      const swap = swapsAxes(info.orientation);
      width = (swap ? info.height : info.width) ?? width;
      height = (swap ? info.width : info.height) ?? height;
    } catch {
      // Fall back to the attached file's size, as WordPress does when the original is unreadable.
    }
  }
  const have = meta.sizes ?? {};
  return Object.keys(registered).filter((name) => {
    const size = registered[name];
    return size && !(name in have) && resizeDimensions(width, height, size.width, size.height, size.crop) !== undefined;
  });
}

/**
 * `wp_update_image_subsizes()` (the `create-image-subsizes` post-process action): with no metadata yet,
 * generates everything; otherwise makes only the missing sizes from the original.
 */
export async function updateImageSubsizes(
  storage: MediaStorage,
  attachedFile: string,
  meta: AttachmentMetadata | undefined,
  mime: string,
  options: ImageProcessorOptions = {},
): Promise<AttachmentMetadata> {
  const original = originalImagePath(attachedFile, meta);
  if (!meta || Object.keys(meta).length === 0 || meta.width === undefined) {
    return createImageSubsizes(storage, original, mime, options);
  }
  const missing = await missingImageSubsizes(storage, attachedFile, meta, mime, options);
  if (missing.length === 0) return meta;
  const registered = options.sizes ?? DEFAULT_IMAGE_SIZES;
  const only = Object.fromEntries(missing.map((name) => [name, registered[name] as ImageSizeDefinition]));
  return makeSubsizes(storage, meta, original, mime, undefined, { ...options, sizes: only });
}
