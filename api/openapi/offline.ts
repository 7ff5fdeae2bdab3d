/**
 * The route table and the OpenAPI document without a running service: no database, Redis, model pool
 * or secret. `declareRoutes` (api/app.ts) runs on stand-in services; a router reads its services only
 * in its handlers, except for the configuration and the detector catalog, which are real here (the
 * catalog of the in-process detectors, the same names a serving process has). Any other service read
 * while declaring throws, naming it, rather than declaring something a real app would not.
 */
import { loadConfig, type Config } from '../../config.ts';
import { buildRegistry } from '../../engine/registry.ts';
import { declareRoutes } from '../app.ts';
import type { AppServices } from '../context.ts';
import { Routes, type DeclaredRoute } from '../route.ts';
import { openApiDocument, type OpenApiDocument } from './document.ts';

/** A service that is not there: reading anything of it, calling it or listing it throws. */
function unavailable(name: string): object {
  const fail = (what: string): never => {
    throw new Error(
      `${what} read while declaring routes offline (api/openapi/offline.ts): routers read services in handlers`,
    );
  };
  return new Proxy(function unavailableService() {}, {
    get: (_t, key) => fail(`${name}.${String(key)}`),
    apply: () => fail(`${name}()`),
    ownKeys: () => fail(`the keys of ${name}`),
  });
}

/** `known`, where every other property is `unavailable`. */
function partial<T extends object>(name: string, known: T): T {
  return new Proxy(known, {
    get: (t, key) => (key in t ? Reflect.get(t, key) : unavailable(`${name}.${String(key)}`)),
  });
}

/** The services `declareRoutes` may read while declaring: the configuration and the detector names. */
function declarationServices(config: Readonly<Config>): AppServices {
  const { names } = buildRegistry({ models: null, loadedModels: [] });
  const policies = partial('policies', { catalog: partial('policies.catalog', { names }) });
  return partial('services', { config, policies }) as unknown as AppServices;
}

/** A handler that is never run: the offline table is not mounted. */
const neverRun = (step: string) => () => {
  throw new Error(`${step} ran on the offline route table, which is never mounted`);
};

/**
 * Every route a process with `config` (default: the defaults, no environment read) declares, as
 * `buildApp(services).routeTable` lists it.
 */
export function openApiRouteTable(config: Readonly<Config> = loadConfig({})): readonly DeclaredRoute[] {
  const routes = new Routes({ jsonBody: neverRun('jsonBody'), idempotency: neverRun('idempotency') });
  declareRoutes(routes, declarationServices(config));
  return routes.declared();
}

/** The OpenAPI document of a process with `config` (default: the defaults), built offline. */
export function offlineOpenApiDocument(config?: Readonly<Config>): OpenApiDocument {
  return openApiDocument(openApiRouteTable(config));
}
