import type { NextFunction, Request, Response } from 'express';
import { Errors, ProblemError } from '../../lib/errors.ts';
import type { Authenticator } from '../../services/authenticator.ts';

/**
 * Resolves the bearer credential (an API key or an SSO session token), when one is presented, before
 * rate limiting (limits are per key or session). It never rejects for a refused credential: a refused credential is kept on the request and raised by routes that need a
 * principal, so a public route answers the same with or without a stale key.
 */
export function identify(authenticator: Authenticator) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    if (header === undefined) return next();
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) {
      req.authError = Errors.unauthenticated('The Authorization header must be "Bearer <API_KEY>".');
      return next();
    }
    try {
      const { principal, session, refusal } = await authenticator.identify(match[1]!);
      if (principal) req.principal = principal;
      if (session) req.session = session;
      if (refusal) req.authError = refusal;
    } catch (err) {
      if (!(err instanceof ProblemError)) return next(err);
      req.authError = err;
    }
    next();
  };
}
