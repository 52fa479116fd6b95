import { OpError } from '../core/errors.js';
import { fileNameProblem } from '../core/names.js';

/** A file name as given, or invalid_argument when it could leave its directory. */
export function checkFileName(name: string): string {
  const problem = fileNameProblem(name);
  if (problem)
    throw new OpError(
      'invalid_argument',
      `File name ${JSON.stringify(name.slice(0, 80))} ${problem}. The files op lists the names.`,
    );
  return name;
}

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  xml: 'application/xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The content type a name implies (by extension); unknown is application/octet-stream. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

/** A name for a file the server makes (`screenshot-s1-m3k2.png`): unique per moment, readable. */
export function madeFileName(prefix: string, session: string, ext: string): string {
  return `${prefix}-${session}-${Date.now().toString(36)}.${ext}`;
}
