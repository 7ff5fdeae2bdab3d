import express, { type NextFunction, type Request, type Response } from 'express';
import { Errors } from '../../lib/errors.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  if (length !== undefined) return length !== '0';
  return req.get('transfer-encoding') !== undefined;
}

/**
 * JSON body parsing for routes that take a body: 415 for another content type, 413 over
 * BODY_LIMIT_BYTES, 400 for malformed JSON (mapped in the problem handler). The raw bytes are kept
 * for the idempotency fingerprint.
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
    parse(req, res, next);
  };
}
