import express, { type Express } from 'express';
import type { AppServices } from './context.ts';
import { requestContext } from './middleware/request-context.ts';
import { parseQuery } from './query-parser.ts';

/**
 * A new Express app with what every listener of ours sets first (the v1 API and the legacy analysis
 * API alike): no `X-Powered-By` and no ETags, TRUST_PROXY, the strict query parser, and the request
 * context (request id, access log, metrics) before anything else.
 */
export function baseApp({ config, logger, metrics }: Pick<AppServices, 'config' | 'logger' | 'metrics'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', parseQuery);
  app.use(requestContext(logger, metrics));
  return app;
}
