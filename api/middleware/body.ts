import express, { type NextFunction, type Request, type Response } from 'express';
import { Errors } from '../../lib/errors.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;
// JSON between systems is UTF-8 (RFC 8259 §8.1). body-parser would also decode UTF-16 and UTF-32, in
// which a lone surrogate needs no `\uD800` escape and would slip past the raw-byte check in storable-text.ts.
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  if (length !== undefined) return length !== '0';
  return req.get('transfer-encoding') !== undefined;
}

/**
 * JSON body parsing for routes that take a body: 415 for another content type or a charset other
 * than UTF-8, 413 over BODY_LIMIT_BYTES, 400 for malformed JSON (mapped in the problem handler). The
 * raw bytes are kept for the idempotency fingerprint and the storable-text check.
 */
export function jsonBody(limitBytes: number) {
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    verify: (req, _res, buf) => {
      (req as Request).rawBody = buf;
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) {
      req.body = undefined;
      req.rawBody = Buffer.alloc(0);
      return next();
    }
    const type = req.get('content-type') ?? '';
    if (!JSON_TYPE.test(type)) return next(Errors.unsupportedMediaType(type));
    const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8') return next(Errors.unsupportedMediaType(type));
    parse(req, res, next);
  };
}
