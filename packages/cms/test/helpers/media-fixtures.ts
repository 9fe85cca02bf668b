import sharp from 'sharp';

/** A solid-colour image of the given size and format, made with sharp (no fixture files in the repo). */
export async function makeImage(
  width: number,
  height: number,
  format: 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff',
  options: { orientation?: number; exif?: Record<string, Record<string, string>> } = {},
): Promise<Buffer> {
  // A gradient rather than a flat colour, so crops and flips are observable in pixel tests.
  const channels = 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * channels;
      raw[i] = Math.round((x / Math.max(1, width - 1)) * 255);
      raw[i + 1] = Math.round((y / Math.max(1, height - 1)) * 255);
      raw[i + 2] = 64;
    }
  }
  let image = sharp(raw, { raw: { width, height, channels } });
  if (options.exif) image = image.withExif(options.exif);
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation });
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality: 90 }).toBuffer();
    case 'png':
      return image.png().toBuffer();
    case 'webp':
      return image.webp().toBuffer();
    case 'gif':
      return image.gif().toBuffer();
    case 'avif':
      return image.avif().toBuffer();
    default:
      return image.tiff().toBuffer();
  }
}

/** The smallest well-formed PDF: one empty page, with a correct cross-reference table. */
export function makePdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * `jpeg` with an IPTC block (Photoshop APP13, resource 0x0404) holding the given datasets of record 2, e.g.
 * `[[5, 'Object name'], [120, 'Caption']]`, written byte for byte (sharp cannot write IPTC).
 */
export function withIptc(jpeg: Buffer, datasets: Array<[number, string]>): Buffer {
  const records = Buffer.concat(
    datasets.map(([dataset, text]) => {
      const data = Buffer.from(text, 'utf8');
      return Buffer.concat([Buffer.from([0x1c, 0x02, dataset, data.length >> 8, data.length & 0xff]), data]);
    }),
  );
  const size = Buffer.alloc(4);
  size.writeUInt32BE(records.length);
  let resource = Buffer.concat([Buffer.from('8BIM'), Buffer.from([0x04, 0x04, 0, 0]), size, records]);
  if (resource.length % 2 === 1) resource = Buffer.concat([resource, Buffer.from([0])]);
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(payload.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xed]), length, payload, jpeg.subarray(2)]);
}
