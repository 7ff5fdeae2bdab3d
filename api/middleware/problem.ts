import type { NextFunction, Request, Response } from 'express';
import { Errors, ProblemError } from '../../lib/errors.ts';
import { isDatabaseUnavailable } from '../../lib/database-errors.ts';
import type { Metrics } from '../../lib/metrics.ts';

// What a client is told to wait while the database is away: long enough for a restart to finish.
const DATABASE_RETRY_AFTER_S = 2;

interface HttpishError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

/**
 * Maps anything thrown to a ProblemError: a database that cannot be reached is 503
 * `service.database_unavailable`; unknown errors become a generic 500 (never driver text).
 */
export function toProblem(err: unknown, bodyLimit: number): ProblemError | null {
  if (err instanceof ProblemError) return err;
  const e = (err ?? {}) as HttpishError;
  switch (e.type) {
    case 'entity.parse.failed':
      return Errors.invalidJson();
    case 'entity.too.large':
      return Errors.bodyTooLarge(bodyLimit);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return Errors.unsupportedMediaType('(unsupported charset or encoding)');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return Errors.badRequest('The request body could not be read.');
  }
  if (isDatabaseUnavailable(err)) return Errors.databaseUnavailable(DATABASE_RETRY_AFTER_S);
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500)
    return Errors.badRequest('The request could not be parsed (for example a malformed percent-encoding in the path).');
  return null;
}

/** The problem document. The `type` is a URN naming the code, documented in docs/errors.md. */
export function problemBody(p: ProblemError, req: Request): Record<string, unknown> {
  return {
    type: `urn:content-firewall:problem:${p.code}`,
    title: p.title,
    status: p.status,
    code: p.code,
    detail: p.detail,
    instance: req.originalUrl.split('?')[0],
    request_id: req.id,
    ...p.extra,
  };
}

/** Renders `application/problem+json`. */
export function sendProblem(req: Request, res: Response, p: ProblemError): void {
  for (const [h, v] of Object.entries(p.headers)) res.setHeader(h, v);
  if (p.status === 401 && !p.headers['WWW-Authenticate']) res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(p.status).type('application/problem+json');
  res.send(JSON.stringify(problemBody(p, req)));
}

/** The one error middleware. */
export function problemHandler(metrics: Metrics, bodyLimit: number) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let p = toProblem(err, bodyLimit);
    if (!p) {
      metrics.unhandledErrors.inc();
      req.log.error(
        { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
        'unhandled error',
      );
      p = Errors.internal();
    } else if (p.status < 500 && !(err instanceof ProblemError)) {
      // A client's fault a library reported (malformed JSON, an aborted or undecodable body, a bad
      // percent-encoding): its kind at debug, never its message (it can quote the body) nor a stack.
      // Error level and stacks are for server faults; the access log has the status.
      const e = err as HttpishError;
      req.log.debug({ cause: e.type ?? (err instanceof Error ? err.name : typeof err) }, 'client fault');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(req, res, p);
  };
}
