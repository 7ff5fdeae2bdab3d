import express, { type Express } from 'express';
import http from 'node:http';
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

/**
 * The `http.createServer` options that serve `app` with request and response objects built on the
 * app's own prototypes (`app.request`, `app.response`). Express re-parents every request and response
 * it handles onto those (`Object.setPrototypeOf`); V8 then gives the object a map of its own, so every
 * property added afterwards — by Express's router, body parsing, and our middleware (`req.id`,
 * `req.log`, `req.principal`…) — takes the slow path (about 2 µs each), and the property accesses
 * that follow miss their inline caches. Built on the right prototype, that re-parenting is a no-op.
 */
export function serverOptions(app: Express): Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  return {
    IncomingMessage: onPrototype(http.IncomingMessage, app.request) as typeof http.IncomingMessage,
    ServerResponse: onPrototype(http.ServerResponse, app.response) as typeof http.ServerResponse,
  };
}

/**
 * A constructor that runs `base`'s on an object whose prototype is `prototype` (which inherits from
 * `base.prototype`). `base` must be callable (Node's IncomingMessage and ServerResponse are ES5
 * constructors): `Reflect.construct` with another new.target works too, but measured slower than the
 * re-parenting it saves.
 */
function onPrototype(base: new (...args: never[]) => object, prototype: object): unknown {
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  function Constructed(this: object, ...args: unknown[]): void {
    init.apply(this, args);
  }
  Constructed.prototype = prototype;
  return Constructed;
}
