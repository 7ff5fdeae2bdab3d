/**
 * Content shapes a scan accepts besides plain text: base64 images (validated, not read by any
 * detector yet) and MCP toolsets (rendered into one text whose layout docs/api.md gives, so spans
 * point into that rendering).
 */

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The media type the bytes' magic number says, or null when they are not a supported image. */
export function sniffImage(bytes: Buffer): ImageMediaType | null {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a)
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && (bytes.toString('latin1', 0, 6) === 'GIF87a' || bytes.toString('latin1', 0, 6) === 'GIF89a'))
    return 'image/gif';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  return null;
}

/** Why `data` is not an acceptable base64 image, or null when it is. */
export function imageProblem(data: string, mediaType: string | undefined): string | null {
  if (data.length === 0) return 'must not be empty';
  if (data.length % 4 !== 0 || !BASE64.test(data))
    return 'must be standard base64 (RFC 4648 §4, padded, no whitespace)';
  const sniffed = sniffImage(Buffer.from(data.slice(0, 32), 'base64'));
  if (!sniffed) return `is not a PNG, JPEG, GIF or WebP image (magic bytes not recognised)`;
  if (mediaType !== undefined && mediaType !== sniffed) return `holds ${sniffed} but media_type says ${mediaType}`;
  return null;
}

export interface ToolDefinition {
  server: string;
  name: string;
  description?: string | undefined;
  input_schema?: Record<string, unknown> | undefined;
}

/**
 * The text a toolset scan reads: per tool a header line `tool <server>/<name>`, its description,
 * then one line per string found in its input schema (`param <json-path>: <text>`) — property
 * names, descriptions, titles, enum values, defaults and examples, where injected instructions hide.
 * Tools are separated by a blank line.
 */
export function renderToolset(tools: readonly ToolDefinition[]): string {
  const parts: string[] = [];
  for (const t of tools) {
    const lines = [`tool ${t.server}/${t.name}`];
    if (t.description) lines.push(t.description);
    if (t.input_schema) collectStrings(t.input_schema, '$', lines, 0);
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n');
}

/** How deep the rendering reads an input schema (the schema itself is level 0); schemas nesting deeper are refused. */
export const TOOLSET_SCHEMA_MAX_DEPTH = 32;

/**
 * Whether an input schema holds an object or array deeper than the rendering reads. Such a schema
 * is refused (400) rather than scanned in part: strings below the limit would pass unread, and
 * thousands of levels would overflow the stack when the scan is stored.
 */
export function schemaTooDeep(node: unknown, depth = 0): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (depth > TOOLSET_SCHEMA_MAX_DEPTH) return true;
  // Recursion is bounded by the limit itself: it stops one level past it.
  for (const v of Object.values(node)) if (schemaTooDeep(v, depth + 1)) return true;
  return false;
}

function collectStrings(node: unknown, path: string, out: string[], depth: number): void {
  if (depth > TOOLSET_SCHEMA_MAX_DEPTH || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      if (typeof v === 'string') out.push(`param ${path}[${i}]: ${v}`);
      else collectStrings(v, `${path}[${i}]`, out, depth + 1);
    });
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    const p = `${path}.${k}`;
    if (typeof v === 'string') out.push(`param ${p}: ${v}`);
    else collectStrings(v, p, out, depth + 1);
    if (path.endsWith('.properties')) out.push(`param ${p} (name): ${k}`);
  }
}
