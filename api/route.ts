import {
  Router,
  type Express,
  type IRouter,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { z } from 'zod';
import type { Entry } from '../lib/error-catalogue.ts';
import { Errors, type ValidationIssue } from '../lib/errors.ts';
import { hasScope, type Scope } from '../lib/scopes.ts';
import type { Principal, SessionIdentity } from '../services/principal.ts';
import type { RateBudget } from './middleware/rate-limit.ts';
import { noQuery } from './fields.ts';
import { jsonTextIssue, type JsonTextFlaw } from './json-text.ts';
import { mayHoldUnstorable, storableText, unstorableIssue } from './storable-text.ts';
import { parseOr400 } from './validate.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * `public`: no credential. `identified`: any valid credential, an SSO session of no organization
 * included (organization create, invite accept, the identity endpoint): the handler reads
 * `principal` only when `req.principal` is set, else `session`. `authenticated`: any valid
 * organization principal, no scope (the spec's other unscoped operations). A Scope: that scope, or `admin`.
 */
export type Access = 'public' | 'identified' | 'authenticated' | Scope;

/**
 * One success answer of a route, as the OpenAPI document (api/openapi/) states it; the contract check
 * of the test harness holds every real response of the integration suite to it.
 */
export interface Success {
  status: 200 | 201 | 202 | 204;
  /** The JSON body: a registered resource schema (api/resources.ts). Absent: no JSON body. */
  body?: z.ZodType;
  description?: string;
  /** Representations chosen by `Accept` instead of JSON: media type → what it holds (CSV, events). */
  other?: Readonly<Record<string, string>>;
  /** Headers this answer sets besides those of every response (`Location`). */
  headers?: readonly string[];
  /**
   * A server-sent event stream (`text/event-stream`, chosen by `Accept`): each event's name → the
   * schema of its JSON `data` (a registered resource, or `'Problem'`) and when it is sent. The document
   * states it as the operation's `x-event-stream`, not among its responses (api/openapi/paths.ts).
   */
  events?: Readonly<Record<string, { data: z.ZodType | 'Problem'; description: string }>>;
}

/** A problem a route answers: its status and code (a catalogue entry, or a list's `<list>.invalid_cursor`). */
export type ProblemCode = Pick<Entry, 'status' | 'code'>;

export interface HandlerContext<P, Q, B> {
  req: Request;
  res: Response;
  principal: Principal;
  /** The SSO session behind the call, if it was made with a session token. */
  session: SessionIdentity | undefined;
  params: P;
  query: Q;
  body: B;
}

/**
 * How a route appears in the OpenAPI document: as an operation with a readable, unique camelCase
 * `operationId` (`createScan`, `rotateApiKey`), the name generated clients give its function; or, for a
 * page and its assets (`/docs`), not at all (`documented: false`): they are not API operations.
 */
export type Documented = { operationId: string; documented?: true } | { documented: false; operationId?: never };

export type RouteSpec<P, Q, B> = RouteOptions<P, Q, B> & Documented;

export interface RouteOptions<P, Q, B> {
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /**
   * Top-level body fields whose text findings index into by character offset (a scan's `content`):
   * there U+0000 and lone surrogates become U+FFFD, one UTF-16 unit for one, so offsets hold. Anywhere
   * else in a request they are 400 (api/storable-text.ts).
   */
  replaceUnstorableIn?: readonly string[];
  /**
   * An operational probe (liveness, readiness, metrics): answered before API-key identification and
   * rate limiting (see `mount`), so no flood from an address can make it answer 429, and it spends
   * no one's budget.
   */
  probe?: boolean;
  /**
   * A static, cacheable answer (the OpenAPI document, `/docs` and its assets): answered before
   * identification and rate limiting like a probe. Served from memory, it costs less than counting it
   * would, and a per-address budget would let one client behind a shared address refuse it to all.
   */
  staticFile?: boolean;
  /**
   * The request carries its own credential (an evidence upload URL's signature): checked before
   * identification and rate limiting (see `mount`), so an address that spent its budget without a
   * credential is not refused a request the credential authenticates. Answers the budget such a
   * request spends instead — keyed by what the credential authenticates — or null when it
   * authenticates nothing (a bad, expired or missing signature): the address's budget applies and
   * the handler refuses the request. Must be cheap for a bad credential. What it throws is ignored
   * (the address's budget applies): the handler must check the credential again when it finds no
   * outcome of this check.
   */
  signed?: (req: Request) => Promise<RateBudget | null>;
  /**
   * The handler reads the request stream itself (an evidence upload's bytes): no JSON body parsing;
   * `body` must be unset. Idempotency-Key still applies (with a bearer), fingerprinted without the body.
   */
  rawBody?: boolean;
  /** What a success answers (required: the OpenAPI document states every route), one or several. */
  responds: Success | readonly Success[];
  /**
   * The problems particular to this route. Those every route of its shape answers (authentication,
   * scope, validation, body parsing, idempotency, rate limiting, versioning, 5xx) are added by
   * api/openapi/problems.ts and need not be listed.
   */
  errors?: readonly ProblemCode[];
  handler: (ctx: HandlerContext<P, Q, B>) => Promise<void> | void;
}

/**
 * One declared route as `Routes.declared()` lists it: the method, the Express path, its access; and,
 * for the OpenAPI document (api/openapi/), its query and body schemas and how its chain treats it.
 */
export interface DeclaredRoute {
  method: Uppercase<Method>;
  path: string;
  access: Access;
  /** The operation's name in the document; absent for a route left out of it (`documented: false`). */
  operationId?: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Idempotency-Key applies: a POST or PUT, with a bearer (the middleware needs a principal). */
  idempotent?: boolean;
  /**
   * Answered before identification, versioning and rate limiting (a probe or a static file): no
   * `Service-Api-Version`, no `RateLimit-*` headers, never 429.
   */
  unmetered?: boolean;
  rawBody?: boolean;
  /** The route validates path parameters. */
  params?: boolean;
  responds: readonly Success[];
  errors: readonly ProblemCode[];
}

/** Middleware every route gets, built once by the app. */
export interface RouteChain {
  jsonBody: RequestHandler;
  idempotency: RequestHandler;
}

/**
 * Declares routes so each one reads as a chain: access → body → idempotency → validation → handler.
 * `mount` registers them and, per path, a 405 with `Allow` for the other methods.
 */
export class Routes {
  private readonly paths = new Map<string, Map<Method, RequestHandler[]>>();
  /** Paths answered before identification and rate limiting: probes and static files. */
  private readonly unmeteredPaths = new Set<string>();
  /** Each signed route's credential check, by path and method: mounted before identification. */
  private readonly signedChecks: { path: string; method: Method; check: RequestHandler }[] = [];
  private readonly table: DeclaredRoute[] = [];

  constructor(private readonly chain: RouteChain) {}

  get<P = unknown, Q = unknown>(path: string, spec: RouteSpec<P, Q, undefined>): this {
    return this.add('get', path, spec);
  }
  post<P = unknown, Q = unknown, B = unknown>(path: string, spec: RouteSpec<P, Q, B>): this {
    return this.add('post', path, spec);
  }
  put<P = unknown, Q = unknown, B = unknown>(path: string, spec: RouteSpec<P, Q, B>): this {
    return this.add('put', path, spec);
  }
  patch<P = unknown, Q = unknown, B = unknown>(path: string, spec: RouteSpec<P, Q, B>): this {
    return this.add('patch', path, spec);
  }
  delete<P = unknown, Q = unknown>(path: string, spec: RouteSpec<P, Q, undefined>): this {
    return this.add('delete', path, spec);
  }

  private add<P, Q, B>(method: Method, path: string, declared: RouteSpec<P, Q, B>): this {
    let methods = this.paths.get(path);
    if (!methods) this.paths.set(path, (methods = new Map()));
    // A route that declares no query takes none: a parameter it would ignore is refused, as a list
    // refuses one it does not know. Probes and static files answer whatever their caller appends.
    const query =
      declared.query ?? (declared.probe || declared.staticFile ? undefined : (noQuery as unknown as z.ZodType<Q>));
    const spec: RouteSpec<P, Q, B> = { ...declared, query };
    const chain = this.bodyChain(method).filter((h) => !spec.rawBody || h !== this.chain.jsonBody);
    methods.set(method, [access(spec.access), ...chain, run(spec)]);
    const unmetered = spec.probe === true || spec.staticFile === true;
    if (unmetered) this.unmeteredPaths.add(path);
    if (spec.signed) this.signedChecks.push({ path, method, check: signedCheck(spec.signed) });
    this.table.push({
      method: method.toUpperCase() as Uppercase<Method>,
      path,
      access: spec.access,
      ...(spec.documented === false ? {} : { operationId: spec.operationId }),
      query: spec.query,
      body: spec.body,
      // The chain decides: the idempotency middleware is in it, and it acts only with a principal.
      idempotent: chain.includes(this.chain.idempotency) && spec.access !== 'public',
      unmetered,
      rawBody: spec.rawBody,
      params: spec.params !== undefined,
      responds: spec.responds === undefined ? [] : ([] as Success[]).concat(spec.responds),
      errors: spec.errors ?? [],
    });
    return this;
  }

  /** GET and DELETE take no body; every POST and PUT also takes Idempotency-Key. */
  private bodyChain(method: Method): RequestHandler[] {
    if (method === 'get' || method === 'delete') return [];
    return method === 'post' || method === 'put'
      ? [this.chain.jsonBody, this.chain.idempotency]
      : [this.chain.jsonBody];
  }

  /** Every route declared so far, in declaration order (the reliability suites enumerate them). */
  declared(): readonly DeclaredRoute[] {
    return this.table.map((r) => ({ ...r }));
  }

  /**
   * Registers every path on `app`, except unmetered paths (probes and static files, with their 405),
   * which go on `early`: a router the app places before identification and rate limiting. `early`
   * also gets each signed route's credential check, which names the budget the route then spends.
   */
  mount(app: Express, early: IRouter): void {
    if (this.signedChecks.length) {
      const checks = Router();
      for (const { path, method, check } of this.signedChecks) checks[method](path, check);
      // A check that fails (a path it cannot decode, a database error) authenticates nothing: the
      // request goes on to the limiter as its address's, and the route's own chain answers it.
      early.use((req, res, next) => checks(req, res, () => next()));
    }
    for (const [path, methods] of this.paths) {
      const on: IRouter = this.unmeteredPaths.has(path) ? early : app;
      for (const [method, handlers] of methods) on[method](path, ...handlers);
      const allowed = [...methods.keys()].map((m) => m.toUpperCase());
      if (allowed.includes('GET')) allowed.push('HEAD');
      allowed.sort();
      on.all(path, (req, _res, next) => next(Errors.methodNotAllowed(req.method, allowed)));
    }
  }
}

function access(a: Access): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (a === 'public') return next();
    if (a === 'identified')
      return req.principal || req.session ? next() : next(req.authError ?? Errors.unauthenticated());
    if (!req.principal) return next(req.authError ?? Errors.unauthenticated());
    if (a !== 'authenticated' && !hasScope(req.principal.scopes, a)) return next(Errors.insufficientScope(a));
    next();
  };
}

/** Sets `req.budget` to what a signed route's credential authenticates, if anything; never refuses. */
function signedCheck(signed: NonNullable<RouteSpec<unknown, unknown, unknown>['signed']>): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const budget = await signed(req);
    if (budget) req.budget = budget;
    next();
  };
}

function run<P, Q, B>(spec: RouteSpec<P, Q, B>): RequestHandler {
  return async (req: Request, res: Response) => {
    const params = spec.params ? parseOr400(spec.params, storableOr400(req.params, 'path'), 'path') : (req.params as P);
    const query = spec.query ? parseOr400(spec.query, storableOr400(req.query, 'query'), 'query') : (undefined as Q);
    if (spec.body) exactJsonOr400(req, spec.replaceUnstorableIn);
    const body = spec.body ? parseOr400(spec.body, storableBody(req, spec.replaceUnstorableIn), '') : (undefined as B);
    await spec.handler({ req, res, principal: req.principal!, session: req.session, params, query, body });
  };
}

/** `value`, or a 400 naming its first string or key that PostgreSQL cannot store. */
function storableOr400<T>(value: T, root: string): T {
  const issue = unstorableIssue(value, root);
  if (issue) throw Errors.validationFailed([issue]);
  return value;
}

const JSON_TEXT_ERRORS: Record<JsonTextFlaw, (issue: ValidationIssue) => Error> = {
  duplicate_key: Errors.duplicateKey,
  forbidden_key: Errors.forbiddenKey,
  number_out_of_range: Errors.numberOutOfRange,
};

/**
 * Nothing, or a 400 for the first thing in the body's JSON text that the parsed body would not carry
 * as sent (a repeated name, `__proto__`, a number a double cannot hold: api/json-text.ts). Numbers in
 * the `lenient` fields (scanned content) are taken as parsed.
 */
function exactJsonOr400(req: Request, lenient: readonly string[] | undefined): void {
  if (!req.rawBody?.length) return;
  const issue = jsonTextIssue(req.rawBody, new Set(lenient));
  if (issue) throw JSON_TEXT_ERRORS[issue.flaw]({ path: issue.path, message: issue.message });
}

/** The parsed body, checked like `storableOr400` except in the `replace` fields, whose text is made storable. */
function storableBody(req: Request, replace: readonly string[] | undefined): unknown {
  const body: unknown = req.body ?? {};
  if (req.rawBody && !mayHoldUnstorable(req.rawBody)) return body;
  const lenient = new Set(replace);
  const issue = unstorableIssue(body, '', lenient);
  if (issue) throw Errors.validationFailed([issue]);
  if (!lenient.size || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...body };
  for (const k of lenient) if (k in out) out[k] = storableText(out[k]);
  return out;
}
