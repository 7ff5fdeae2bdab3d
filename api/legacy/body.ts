import express, { type Request, type Response } from 'express';
import { storableString } from '../storable-text.ts';
import { countChars } from './characters.ts';
import { LegacyErrors } from './errors.ts';

// UTF-8 takes at most 4 bytes a character: a body past maxChars × 4 bytes is too long whatever it says.
const MAX_BYTES_PER_CHAR = 4;

export interface BodyReader {
  /**
   * The body's text, NUL (which PostgreSQL cannot store) turned into U+FFFD as v1 scans store content.
   * @throws LegacyError 400 CONTENT_TOO_LONG past `maxChars`, EMPTY_CONTENT when empty; the body parser's errors.
   */
  read(req: Request, res: Response, maxChars: number, long: boolean): Promise<string>;
}

/**
 * Reads text/plain bodies (the caller checked the Content-Type) up to a character limit. Express's text
 * parser decodes UTF-8 (an invalid byte becomes U+FFFD) and stops reading at the byte bound.
 */
export function bodyReader(): BodyReader {
  const parsers = new Map<number, express.RequestHandler>();
  const parserFor = (maxChars: number) => {
    let p = parsers.get(maxChars);
    if (!p) {
      p = express.text({ type: () => true, limit: maxChars * MAX_BYTES_PER_CHAR, defaultCharset: 'utf-8' });
      parsers.set(maxChars, p);
    }
    return p;
  };
  return {
    async read(req, res, maxChars, long) {
      await new Promise<void>((resolve, reject) =>
        parserFor(maxChars)(req, res, (err?: unknown) => {
          if ((err as { type?: string } | undefined)?.type === 'entity.too.large')
            reject(LegacyErrors.contentTooLong(maxChars, long));
          else if (err) reject(err instanceof Error ? err : new Error(String(err)));
          else resolve();
        }),
      );
      const text = typeof req.body === 'string' ? req.body : '';
      if (text.length === 0) throw LegacyErrors.emptyContent();
      if (countChars(text, maxChars) > maxChars) throw LegacyErrors.contentTooLong(maxChars, long);
      return storableString(text);
    },
  };
}
