/** A registered image sub-size (`add_image_size`). A zero width or height means "unbounded". */
export interface ImageSizeDefinition {
  width: number;
  height: number;
  crop: boolean;
}

/**
 * WordPress's default sub-sizes, in `wp_get_registered_image_subsizes()` order: the four option-backed
 * sizes (thumbnail 150×150 hard-cropped, medium 300, medium_large 768 wide, large 1024) and the two
 * retina sizes core adds with `add_image_size()`.
 */
export const DEFAULT_IMAGE_SIZES: Readonly<Record<string, ImageSizeDefinition>> = {
  thumbnail: { width: 150, height: 150, crop: true },
  medium: { width: 300, height: 300, crop: false },
  medium_large: { width: 768, height: 0, crop: false },
  large: { width: 1024, height: 1024, crop: false },
  '1536x1536': { width: 1536, height: 1536, crop: false },
  '2048x2048': { width: 2048, height: 2048, crop: false },
};

/** Images wider or taller than this are scaled down and saved as `-scaled` (`big_image_size_threshold`). */
export const BIG_IMAGE_THRESHOLD_PX = 2560;

/**
 * The order `_wp_make_subsizes()` creates sizes in: the most useful first, so that an interrupted upload
 * still has them. The metadata `sizes` object keeps this order.
 */
export function subsizeCreationOrder(sizes: Readonly<Record<string, ImageSizeDefinition>>): string[] {
  const priority = ['medium', 'large', 'thumbnail', 'medium_large'].filter((name) => name in sizes);
  return [...priority, ...Object.keys(sizes).filter((name) => !priority.includes(name))];
}

/**
 * `wp_constrain_dimensions()`: fits width × height inside a box (0 = unbounded) keeping the aspect ratio,
 * never enlarging, with WordPress's one-pixel rounding correction.
 */
export function constrainDimensions(width: number, height: number, maxWidth = 0, maxHeight = 0): [number, number] {
  if (!maxWidth && !maxHeight) return [width, height];
  let widthRatio = 1;
  let heightRatio = 1;
  let didWidth = false;
  let didHeight = false;
  if (maxWidth > 0 && width > 0 && width > maxWidth) {
    widthRatio = maxWidth / width;
    didWidth = true;
  }
  if (maxHeight > 0 && height > 0 && height > maxHeight) {
    heightRatio = maxHeight / height;
    didHeight = true;
  }
  const smaller = Math.min(widthRatio, heightRatio);
  const larger = Math.max(widthRatio, heightRatio);
  const ratio = phpRound(width * larger) > maxWidth || phpRound(height * larger) > maxHeight ? smaller : larger;
  let w = Math.max(1, phpRound(width * ratio));
  let h = Math.max(1, phpRound(height * ratio));
  // "465x700 in a 177x177 box is 117x176... a pixel short": bump results one pixel shy of the box.
  if (didWidth && w === maxWidth - 1) w = maxWidth;
  if (didHeight && h === maxHeight - 1) h = maxHeight;
  return [w, h];
}

/** Source rectangle and output size of one resize (the arguments of `imagecopyresampled`). */
export interface ResizePlan {
  srcX: number;
  srcY: number;
  srcWidth: number;
  srcHeight: number;
  width: number;
  height: number;
}

/**
 * `image_resize_dimensions()`: how to make a sub-size of an image, or undefined when WordPress would not
 * make it (the image is smaller than the size in every bounded direction, or the result would be within a
 * pixel of the original). A crop takes the largest centred region with the target's aspect ratio.
 */
export function resizeDimensions(
  origWidth: number,
  origHeight: number,
  destWidth: number,
  destHeight: number,
  crop: boolean,
): ResizePlan | undefined {
  if (origWidth <= 0 || origHeight <= 0) return undefined;
  if (destWidth <= 0 && destHeight <= 0) return undefined;

  // Stop when the destination is larger than the original: WordPress never upscales.
  if (!destHeight) {
    if (origWidth < destWidth) return undefined;
  } else if (!destWidth) {
    if (origHeight < destHeight) return undefined;
  } else if (origWidth < destWidth && origHeight < destHeight) {
    return undefined;
  }

  let newWidth: number;
  let newHeight: number;
  let srcX = 0;
  let srcY = 0;
  let cropWidth = origWidth;
  let cropHeight = origHeight;

  if (crop) {
    const aspect = origWidth / origHeight;
    newWidth = Math.min(destWidth, origWidth);
    newHeight = Math.min(destHeight, origHeight);
    if (!newWidth) newWidth = phpRound(newHeight * aspect);
    if (!newHeight) newHeight = phpRound(newWidth / aspect);
    const sizeRatio = Math.max(newWidth / origWidth, newHeight / origHeight);
    cropWidth = phpRound(newWidth / sizeRatio);
    cropHeight = phpRound(newHeight / sizeRatio);
    srcX = Math.floor((origWidth - cropWidth) / 2);
    srcY = Math.floor((origHeight - cropHeight) / 2);
  } else {
    [newWidth, newHeight] = constrainDimensions(origWidth, origHeight, destWidth, destHeight);
  }

  if (Math.abs(newWidth - origWidth) <= 1 && Math.abs(newHeight - origHeight) <= 1) return undefined;

  return {
    srcX: Math.trunc(srcX),
    srcY: Math.trunc(srcY),
    srcWidth: Math.trunc(cropWidth),
    srcHeight: Math.trunc(cropHeight),
    width: Math.trunc(newWidth),
    height: Math.trunc(newHeight),
  };
}

/** PHP's `round()`: halves away from zero (JavaScript's `Math.round` rounds -0.5 up). */
export function phpRound(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}
