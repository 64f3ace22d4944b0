// Images of session messages (image blocks: mimeType + base64 data).

const ALLOWED = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A data: URL for an image block, or null when the type is not a plain
 * raster image (svg could carry script) or the data is not base64.
 */
export function imageDataURL(mimeType: string | undefined, data: string | undefined): string | null {
  const mime = (mimeType ?? '').trim().toLowerCase();
  if (!ALLOWED.has(mime) || !data) return null;
  const clean = data.replace(/\s+/g, '');
  if (!BASE64.test(clean)) return null;
  return `data:${mime};base64,${clean}`;
}
