import sharp, { type Sharp } from 'sharp';
import { type AttachmentMetadata, baseName, relativeDir } from './attachment-metadata.ts';
import { MediaError } from './errors.ts';
import { phpRound } from './image-sizes.ts';

/** One step of `POST /media/{id}/edit`: flip, rotate clockwise by degrees, or crop by percentages. */
export type ImageModifier =
  | { type: 'flip'; args: { flip: { horizontal: boolean; vertical: boolean } } }
  | { type: 'rotate'; args: { angle: number } }
  | { type: 'crop'; args: { left: number; top: number; width: number; height: number } };

/** Image types the edit endpoint accepts (WordPress: JPEG, PNG, GIF, WebP, AVIF). */
export const EDITABLE_IMAGE_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
];

/**
 * The most pixels an edit works on, before and after each step: every step holds the whole image raw in
 * memory (4 bytes a pixel at most, twice while a step runs), so without a bound one request could ask for
 * gigabytes: a 16000 x 16000 PNG compresses to under 1 MB, and each 45° rotation doubles the canvas. 50
 * megapixels still takes a 48-megapixel phone photo.
 */
export const EDIT_MAX_PIXELS = 50_000_000;

/** The most modifiers one edit request may apply: each costs a pass over the whole image. */
export const EDIT_MAX_MODIFIERS = 20;

/** The 400 for an edit whose image, or whose result after a step, is over EDIT_MAX_PIXELS. */
function tooLarge(what: string, width: number, height: number): MediaError {
  return new MediaError(
    'rest_image_too_large',
    `${what} ${width} x ${height} pixels; images are edited up to ${EDIT_MAX_PIXELS / 1_000_000} megapixels.`,
    400,
  );
}

/** The size of the canvas a rotation by `angle` degrees needs (the bounding box of the turned image). */
function rotatedSize(width: number, height: number, angle: number): { width: number; height: number } {
  const radians = (angle * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return { width: Math.ceil(width * cos + height * sin), height: Math.ceil(width * sin + height * cos) };
}

/** The result of applying modifiers: encoded bytes in the source format, and their size. */
export interface EditedImage {
  data: Buffer;
  width: number;
  height: number;
  mime: string;
}

interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/**
 * Applies edit modifiers in order to the upright image, as the REST edit endpoint does: each step sees the
 * result of the previous one (a crop after a 90° rotation is in the rotated frame). A crop equal to the
 * whole image and a rotation by a multiple of 360° change nothing.
 */
export async function applyImageEdits(
  bytes: Uint8Array,
  mime: string,
  modifiers: readonly ImageModifier[],
  quality: { jpeg?: number; webp?: number; avif?: number } = {},
): Promise<EditedImage> {
  if (!EDITABLE_IMAGE_TYPES.includes(mime)) {
    throw new MediaError('rest_cannot_edit_file_type', 'This type of file cannot be edited.', 400);
  }
  if (modifiers.length > EDIT_MAX_MODIFIERS) {
    throw new MediaError(
      'rest_invalid_param',
      `Too many image modifiers (${modifiers.length}); an edit applies at most ${EDIT_MAX_MODIFIERS}.`,
      400,
    );
  }
  // The header gives the size without decoding the pixels.
  let header: { width?: number | undefined; height?: number | undefined } = {};
  try {
    header = await sharp(bytes).metadata();
  } catch {
    // Left to the decode below, which fails with WordPress's error.
  }
  if ((header.width ?? 0) * (header.height ?? 0) > EDIT_MAX_PIXELS) {
    throw tooLarge('This image is too large to edit:', header.width!, header.height!);
  }
  let image: RawImage;
  try {
    image = await toRaw(sharp(bytes, { failOn: 'error', limitInputPixels: EDIT_MAX_PIXELS }).autoOrient());
  } catch (error) {
    throw new MediaError('rest_unknown_image_file_type', 'Unable to edit this image.', 500, { cause: error });
  }
  const opaque = mime === 'image/jpeg';

  for (const modifier of modifiers) {
    switch (modifier.type) {
      case 'flip': {
        const { horizontal, vertical } = modifier.args.flip;
        if (!horizontal && !vertical) break;
        let step = fromRaw(image);
        // WordPress's "vertical" flip mirrors top to bottom; its "horizontal" flip mirrors left to right.
        if (vertical) step = step.flip();
        if (horizontal) step = step.flop();
        image = await run(step, 'rest_image_flip_failed', 'Unable to flip this image.');
        break;
      }
      case 'rotate': {
        const angle = modifier.args.angle % 360;
        if (angle === 0) break;
        const turned = rotatedSize(image.width, image.height, angle);
        if (turned.width * turned.height > EDIT_MAX_PIXELS) {
          throw tooLarge(`Rotating by ${angle}° would make an image of`, turned.width, turned.height);
        }
        const background = opaque ? { r: 255, g: 255, b: 255, alpha: 1 } : { r: 0, g: 0, b: 0, alpha: 0 };
        let step = fromRaw(image);
        // A rotation by an arbitrary angle uncovers corners; keep them transparent where the format can.
        if (!opaque && angle % 90 !== 0 && (image.channels === 1 || image.channels === 3)) step = step.ensureAlpha();
        image = await run(
          step.rotate(angle, { background }),
          'rest_image_rotation_failed',
          'Unable to rotate this image.',
        );
        break;
      }
      case 'crop': {
        const { left, top, width, height } = modifier.args;
        const cropX = phpRound((image.width * left) / 100);
        const cropY = phpRound((image.height * top) / 100);
        const cropW = phpRound((image.width * width) / 100);
        const cropH = phpRound((image.height * height) / 100);
        if (cropW === image.width && cropH === image.height) break;
        // Clip to the image like ImageMagick does instead of failing on an area that overhangs an edge.
        const x = clamp(cropX, 0, image.width - 1);
        const y = clamp(cropY, 0, image.height - 1);
        const w = clamp(cropW, 1, image.width - x);
        const h = clamp(cropH, 1, image.height - y);
        image = await run(
          fromRaw(image).extract({ left: x, top: y, width: w, height: h }),
          'rest_image_crop_failed',
          'Unable to crop this image.',
        );
        break;
      }
      default:
        throw new MediaError('rest_invalid_param', 'Unknown image modifier.', 400);
    }
  }

  let output = fromRaw(image);
  switch (mime) {
    case 'image/jpeg':
      output = output.flatten({ background: '#ffffff' }).jpeg({ quality: quality.jpeg ?? 82 });
      break;
    case 'image/png':
      output = output.png({ compressionLevel: 9, adaptiveFiltering: true });
      break;
    case 'image/gif':
      output = output.gif();
      break;
    case 'image/webp':
      output = output.webp({ quality: quality.webp ?? 86 });
      break;
    default:
      output = output.avif({ quality: quality.avif ?? 60 });
  }
  const { data, info } = await output.toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, mime };
}

/**
 * The file name of an edited copy (`{name}-edited.{ext}`, as the REST edit endpoint names it); editing an
 * edited image does not stack the suffix. Uniqueness is the caller's job.
 */
export function editedFileName(originalRelFile: string): string {
  const name = baseName(originalRelFile);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  const edited = /-edited(-\d+)?$/.test(stem) ? stem.replace(/-edited(-\d+)?$/, '-edited') : `${stem}-edited`;
  return ext ? `${edited}.${ext}` : edited;
}

/**
 * `wp_image_file_matches_image_meta()`: whether `src` (a URL, query ignored) names the attachment's full
 * size, its original, or one of its sub-sizes.
 */
export function imageSourceMatches(src: string, meta: AttachmentMetadata | undefined): boolean {
  if (!meta?.file || meta.file.length <= 4) return false;
  const location = decodeSafe(src.split('?')[0] ?? '');
  if (location.endsWith(meta.file)) return true;
  const dir = relativeDir(meta.file);
  const prefix = dir ? `${dir}/` : '';
  if (meta.original_image && location.endsWith(prefix + meta.original_image)) return true;
  return Object.values(meta.sizes ?? {}).some((size) => size?.file && location.endsWith(prefix + size.file));
}

function decodeSafe(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}

function fromRaw(image: RawImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}

async function toRaw(pipeline: Sharp): Promise<RawImage> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as RawImage['channels'] };
}

async function run(pipeline: Sharp, code: string, message: string): Promise<RawImage> {
  try {
    return await toRaw(pipeline);
  } catch (error) {
    throw new MediaError(code, message, 500, { cause: error });
  }
}
