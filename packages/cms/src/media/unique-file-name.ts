import { sanitizeFileName } from './sanitize-file-name.ts';

/** Names WordPress gives generated copies of an image: sub-sizes, the big-image copy, the rotated copy. */
const GENERATED_SUFFIX = /-(?:\d+x\d+|scaled|rotated)$/;

/**
 * `wp_unique_filename()`: the sanitised name, made unique among `existing` (the names already in the target
 * folder) by appending `-1`, `-2`, ... before the extension. The extension is lower-cased. Names that look
 * like generated copies (`photo-150x150.jpg`, `photo-scaled.jpg`) always get a number, and a name is also
 * skipped while a file in the folder looks like one of *its* future generated copies (uploading `photo.jpg`
 * next to an existing `photo-300x200.jpg`), so sub-sizes of two uploads never collide.
 */
export function uniqueFileName(filename: string, existing: Iterable<string>): string {
  const files = existing instanceof Set ? (existing as Set<string>) : new Set(existing);
  const lowerFiles = new Set([...files].map((f) => f.toLowerCase()));
  const sanitized = sanitizeFileName(filename);

  const dot = sanitized.lastIndexOf('.');
  const rawExt = dot > 0 ? sanitized.slice(dot) : '';
  const ext = rawExt.toLowerCase();
  let base = rawExt ? sanitized.slice(0, dot) : sanitized;
  let number = 0;

  if (base && GENERATED_SUFFIX.test(base)) number = 1;

  const nameFor = (n: number): string => (n === 0 ? `${base}${ext}` : `${base}-${n}${ext}`);
  // A case-insensitive file system (or a copy on one) would see `A.JPG` and `a.jpg` as the same file.
  const taken = (candidate: string): boolean => files.has(candidate) || lowerFiles.has(candidate.toLowerCase());

  if (base === '' && ext === '') base = 'unnamed-file';
  while (taken(nameFor(number))) number += 1;

  if (base && ext) {
    // Bounded like WordPress's loop: at most one step per file in the folder.
    for (let i = 0; i <= files.size && clashesWithGeneratedCopies(nameFor(number), files); i += 1) {
      number += 1;
      while (taken(nameFor(number))) number += 1;
    }
  }
  return nameFor(number);
}

/** `_wp_check_existing_file_names()`: whether a file in the folder looks like a generated copy of `name`. */
function clashesWithGeneratedCopies(name: string, files: Set<string>): boolean {
  const dot = name.lastIndexOf('.');
  const base = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  if (!base) return false;
  const pattern = new RegExp(`^${escapeRegExp(base)}-(?:\\d+x\\d+|scaled|rotated)${escapeRegExp(ext)}$`, 'i');
  for (const file of files) if (pattern.test(file)) return true;
  return false;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
