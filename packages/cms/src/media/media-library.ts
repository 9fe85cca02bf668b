import {
  type AttachmentMetadata,
  attachmentFiles,
  baseName,
  joinRelative,
  originalImagePath,
  relativeDir,
} from './attachment-metadata.ts';
import { detectUploadType } from './detect-type.ts';
import { applyImageEdits, editedFileName, type ImageModifier, imageSourceMatches } from './edit-image.ts';
import { MediaError } from './errors.ts';
import {
  createImageSubsizes,
  type ImageProcessorOptions,
  isProcessableImage,
  missingImageSubsizes,
  updateImageSubsizes,
} from './image-processor.ts';
import { ALLOWED_MIME_TYPES } from './mime-types.ts';
import type { MediaStorage } from './storage.ts';
import { uniqueFileName } from './unique-file-name.ts';

/** Default largest upload: 64 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/** Settings of a {@link MediaLibrary}. */
export interface MediaLibraryOptions {
  storage: MediaStorage;
  /** Largest accepted upload in bytes. */
  maxUploadBytes?: number;
  /** Uploadable types keyed by extension alternation; WordPress's defaults when omitted. */
  allowedTypes?: Readonly<Record<string, string>>;
  /** Sub-sizes, threshold and encoder settings. */
  image?: ImageProcessorOptions;
  /** The clock deciding the `YYYY/MM` upload folder. */
  now?: () => Date;
}

/** A file stored by {@link MediaLibrary.storeUpload}. */
export interface StoredUpload {
  /** Path relative to the uploads root (`_wp_attached_file`). */
  file: string;
  mime: string;
  url: string;
  filesize: number;
  /** Default attachment title: the stored name without its extension. */
  title: string;
}

/** An edited copy written by {@link MediaLibrary.editImage}. */
export interface EditedCopy {
  file: string;
  mime: string;
  /** Metadata of the copy, without `parent_image` (the caller knows the new attachment's id). */
  metadata: AttachmentMetadata;
  /** Default title of the copy: its name without extension. */
  title: string;
}

/**
 * The media operations the REST controller and the CLI share: storing an upload under `YYYY/MM` with a
 * safe, unique name after checking its real type and size; generating metadata and sub-sizes; editing
 * images into new copies; deleting every file of an attachment.
 */
export class MediaLibrary {
  readonly storage: MediaStorage;
  readonly maxUploadBytes: number;
  readonly allowedTypes: Readonly<Record<string, string>>;
  readonly image: ImageProcessorOptions;
  readonly #now: () => Date;

  constructor(options: MediaLibraryOptions) {
    this.storage = options.storage;
    this.maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    this.allowedTypes = options.allowedTypes ?? ALLOWED_MIME_TYPES;
    this.image = options.image ?? {};
    this.#now = options.now ?? (() => new Date());
  }

  /** The `YYYY/MM` folder uploads go to now (`wp_upload_dir()['subdir']`, UTC). */
  currentFolder(): string {
    const now = this.#now();
    return `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  }

  /** The public URL of a stored file. */
  url(relPath: string): string {
    return this.storage.url(relPath);
  }

  /**
   * Checks and stores an upload: not empty, within the size limit, an allowed type whose bytes match its
   * name; then writes it under the current `YYYY/MM` folder with a sanitised, unique name.
   */
  async storeUpload(bytes: Uint8Array, clientFilename: string): Promise<StoredUpload> {
    if (bytes.byteLength === 0) throw new MediaError('rest_upload_no_data', 'No data supplied.', 400);
    if (bytes.byteLength > this.maxUploadBytes) {
      throw new MediaError(
        'rest_upload_file_too_big',
        `This file is too big. Files must be less than ${Math.floor(this.maxUploadBytes / 1024)} KB in size.`,
        400,
      );
    }
    const type = await detectUploadType(bytes, clientFilename, this.allowedTypes);
    const folder = this.currentFolder();
    const taken = new Set(await this.storage.list(folder));
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const name = uniqueFileName(clientFilename, taken);
      const file = joinRelative(folder, name);
      try {
        await this.storage.create(file, bytes);
      } catch (error) {
        // Another upload took the name between listing and writing: try the next one.
        if (error instanceof MediaError && error.code === 'file_exists') {
          taken.add(name);
          continue;
        }
        throw error;
      }
      return {
        file,
        mime: type.mime,
        url: this.storage.url(file),
        filesize: bytes.byteLength,
        title: name.replace(/\.[^.]+$/, ''),
      };
    }
    throw new MediaError('rest_upload_file_error', 'Could not find a free file name for the upload.', 500);
  }

  /**
   * `wp_generate_attachment_metadata()`: sub-sizes and EXIF data for images the processor handles (which
   * may replace the attached file by a `-scaled` copy: use the returned `file`), only `filesize` otherwise.
   */
  async generateMetadata(file: string, mime: string): Promise<AttachmentMetadata> {
    if (mime.startsWith('image/') && isProcessableImage(mime)) {
      return createImageSubsizes(this.storage, file, mime, this.image);
    }
    const filesize = await this.storage.size(file);
    return filesize === undefined ? {} : { filesize };
  }

  /** The `create-image-subsizes` post-process action: makes the sizes an interrupted upload lacks. */
  async createMissingSubsizes(
    file: string,
    meta: AttachmentMetadata | undefined,
    mime: string,
  ): Promise<AttachmentMetadata> {
    if (!isProcessableImage(mime)) return meta ?? {};
    return updateImageSubsizes(this.storage, file, meta, mime, this.image);
  }

  /** Registered sizes that fit the image but were not made (`missing_image_sizes`). */
  async missingSubsizes(file: string, meta: AttachmentMetadata | undefined, mime: string): Promise<string[]> {
    if (!isProcessableImage(mime)) return [];
    return missingImageSubsizes(this.storage, file, meta, mime, this.image);
  }

  /**
   * The edit endpoint's file work: checks that `src` is one of the attachment's files, applies the
   * modifiers to the original upload, saves `{name}-edited.{ext}` (made unique) in the current folder and
   * generates the copy's sub-sizes. The original is left untouched.
   */
  async editImage(input: {
    file: string;
    meta: AttachmentMetadata | undefined;
    mime: string;
    src: string;
    modifiers: readonly ImageModifier[];
  }): Promise<EditedCopy> {
    if (!input.meta?.file || !imageSourceMatches(input.src, input.meta)) {
      throw new MediaError('rest_unknown_attachment', 'Unable to get meta information for file.', 404);
    }
    const original = originalImagePath(input.file, input.meta);
    const bytes = await this.storage.read(original);
    const edited = await applyImageEdits(bytes, input.mime, input.modifiers, {
      jpeg: this.image.jpegQuality,
      webp: this.image.webpQuality,
      avif: this.image.avifQuality,
    });
    const folder = this.currentFolder();
    const taken = new Set(await this.storage.list(folder));
    let file = '';
    for (let attempt = 0; attempt < 20 && file === ''; attempt += 1) {
      const name = uniqueFileName(editedFileName(original), taken);
      try {
        await this.storage.create(joinRelative(folder, name), edited.data);
        file = joinRelative(folder, name);
      } catch (error) {
        if (error instanceof MediaError && error.code === 'file_exists') {
          taken.add(name);
          continue;
        }
        throw error;
      }
    }
    if (file === '') throw new MediaError('rest_upload_file_error', 'Could not save the edited image.', 500);
    const metadata = await createImageSubsizes(this.storage, file, edited.mime, this.image);
    // Merge the original's EXIF into the copy's where the copy has nothing, then mark it upright.
    if (input.meta.image_meta && metadata.image_meta) {
      const merged = { ...metadata.image_meta };
      for (const [key, value] of Object.entries(input.meta.image_meta) as [keyof typeof merged, never][]) {
        const current = merged[key];
        const empty = current === '' || current === '0' || (Array.isArray(current) && current.length === 0);
        const present = value !== '' && value !== '0' && !(Array.isArray(value) && (value as unknown[]).length === 0);
        if (empty && present) merged[key] = value;
      }
      if (merged.orientation !== '0' && merged.orientation !== '') merged.orientation = '1';
      metadata.image_meta = merged;
    }
    return { file: metadata.file ?? file, mime: edited.mime, metadata, title: baseName(file).replace(/\.[^.]+$/, '') };
  }

  /** Force delete: removes the attached file, every sub-size and the original of a scaled image. */
  async deleteFiles(file: string, meta: AttachmentMetadata | undefined): Promise<string[]> {
    const removed: string[] = [];
    for (const relPath of attachmentFiles(file, meta)) {
      if (await this.storage.remove(relPath)) removed.push(relPath);
    }
    return removed;
  }

  /** The public URL of a sub-size file stored next to the attached file. */
  sizeUrl(file: string, sizeFile: string): string {
    return this.storage.url(joinRelative(relativeDir(file), sizeFile));
  }
}
