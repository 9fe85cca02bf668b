/**
 * Reading the file of a media upload from a REST request, as WordPress's attachments controller does:
 * a multipart `file` part (`upload_from_file`), or the raw body named by `Content-Disposition` and typed
 * by `Content-Type` (`upload_from_data`), with an optional `Content-MD5` check.
 */
import { createHash } from 'node:crypto';
import { RestError } from '../rest/errors.ts';
import type { RestRequest } from '../rest/request.ts';

/** An upload's bytes and the file name the client gave. */
export interface ReceivedUpload {
  bytes: Buffer;
  filename: string;
  /** `multipart` or `raw`, which decides WordPress's error code for a rejected file. */
  via: 'multipart' | 'raw';
}

/**
 * `get_filename_from_disposition()`: the `filename` parameter of a Content-Disposition value (quotes
 * removed); `filename*` (RFC 5987) is read when there is no plain one.
 */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let filename: string | undefined;
  let extended: string | undefined;
  const value = header.trim();
  const semicolon = value.indexOf(';');
  if (semicolon === -1) return undefined;
  for (const part of value.slice(semicolon + 1).split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    let v = part.slice(eq + 1).trim();
    if (key === 'filename' && v !== '') {
      if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
      filename = v;
    } else if (key === 'filename*' && v !== '') {
      const m = /^([\w!#$%&+^`{}~-]*)'[\w-]*'(.*)$/.exec(v);
      try {
        extended = decodeURIComponent(m ? (m[2] ?? '') : v);
      } catch {
        extended = undefined;
      }
    }
  }
  const name = filename ?? extended;
  return name === '' ? undefined : name;
}

/** The file of an upload request, or the WordPress error for what is missing or wrong. */
export function receiveUpload(request: RestRequest): ReceivedUpload {
  const md5 = request.header('content-md5')?.trim();
  const part = request.files.file;
  if (Object.keys(request.files).length > 0) {
    if (!part) throw new RestError('rest_upload_no_data', 'No data supplied.', { status: 400 });
    if (md5 && md5 !== createHash('md5').update(part.data).digest('hex')) {
      throw new RestError('rest_upload_hash_mismatch', 'Content hash did not match expected.', { status: 412 });
    }
    return { bytes: part.data, filename: part.filename, via: 'multipart' };
  }
  const bytes = request.rawBody;
  if (!bytes || bytes.length === 0) throw new RestError('rest_upload_no_data', 'No data supplied.', { status: 400 });
  if (!request.header('content-type')) {
    throw new RestError('rest_upload_no_content_type', 'No Content-Type supplied.', { status: 400 });
  }
  const disposition = request.header('content-disposition');
  if (!disposition) {
    throw new RestError('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', { status: 400 });
  }
  const filename = filenameFromDisposition(disposition);
  if (!filename) {
    throw new RestError(
      'rest_upload_invalid_disposition',
      'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
      { status: 400 },
    );
  }
  if (md5 && md5 !== createHash('md5').update(bytes).digest('hex')) {
    throw new RestError('rest_upload_hash_mismatch', 'Content hash did not match expected.', { status: 412 });
  }
  return { bytes, filename, via: 'raw' };
}
