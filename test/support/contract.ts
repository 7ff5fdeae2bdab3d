/**
 * The contract check: every response a test app sends is held to the OpenAPI document the app
 * serves. Its status must be one the operation documents, its media type one that status lists, and
 * its JSON body (a resource, or a problem with a code of that status) must validate against the
 * schema there. `startTestApp` wraps every app in it, so the whole integration and reliability suite
 * is the contract test: a violation fails the test file that caused it, when the app closes.
 *
 * Responses no operation answers (no route matched: 404 `request.route_not_found`, 405, a 429 from
 * the rate limiter before routing) are not checked here; test/integration/openapi.test.ts covers them.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { templateOf } from '../../api/openapi/paths.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export interface Violation {
  operation: string;
  status: number;
  problem: string;
}

/** Validators for one document, compiled on first use. */
export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly violations: Violation[] = [];

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  }

  /** Wraps `app`: the response of every request it answers is checked when it finishes. */
  wrap(app: RequestListener): RequestListener {
    return (req, res) => {
      const body = captureBody(res);
      res.on('finish', () => this.check(req, res, body()));
      app(req, res);
    };
  }

  private check(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const route = (req as IncomingMessage & { route?: { path: string; methods: Record<string, boolean> } }).route;
    if (!route || route.methods._all || req.method === 'HEAD') return;
    const template = templateOf(route.path);
    const method = req.method!.toLowerCase();
    const op = this.doc.paths[template]?.[method] as Json | undefined;
    if (!op) return;
    const name = `${req.method} ${template}`;
    const status = res.statusCode;
    const fail = (problem: string) => this.record({ operation: name, status, problem });
    const media = String(res.getHeader('content-type') ?? '')
      .split(';')[0]!
      .trim();
    // The stream an operation answers when asked is stated apart from its responses (api/openapi/paths.ts).
    const stream = op['x-event-stream'] as Json | undefined;
    if (media === 'text/event-stream' && stream?.status === status)
      return this.checkEvents(name, status, stream.events as Json, body.toString('utf8'), fail);
    const documented = op.responses[String(status)] as Json | undefined;
    if (!documented) return fail(`status ${status} is not documented`);
    if (!media || body.length === 0) return;
    const content = documented.content?.[media] as Json | undefined;
    if (!content) return fail(`${media} is not documented for ${status}`);
    if (!/json$/.test(media)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return fail('the body is not JSON');
    }
    const validate = this.validator(`${name} ${status} ${media}`, content.schema as Json);
    if (!validate(parsed)) {
      const code = (parsed as { code?: unknown } | null)?.code;
      fail(`${typeof code === 'string' ? `${code}: ` : ''}${schemaErrors(validate)}`);
    }
  }

  /** Each event of a stream: a name the document lists, and `data` that validates against its schema. */
  private checkEvents(name: string, status: number, events: Json, text: string, fail: (p: string) => void): void {
    for (const frame of text.split(/\n\n/)) {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event === undefined || data === undefined) continue;
      const declared = events[event] as Json | undefined;
      if (!declared) {
        fail(`event ${event} is not documented`);
        continue;
      }
      const validate = this.validator(`${name} ${status} event ${event}`, declared.schema as Json);
      if (!validate(JSON.parse(data))) {
        fail(`event ${event}: ${schemaErrors(validate)}`);
      }
    }
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) {
      // The operation's refs point into the document's components: resolve them against `doc`.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as Json;
      this.validators.set(key, (v = this.ajv.compile(rebased)));
    }
    return v;
  }

  private record(v: Violation): void {
    if (process.env.CONTRACT_REPORT) appendFileSync(process.env.CONTRACT_REPORT, `${JSON.stringify(v)}\n`);
    else this.violations.push(v);
  }

  /** @throws Error listing the violations (each distinct one once), if there were any. */
  assertClean(): void {
    if (!this.violations.length) return;
    const distinct = [...new Set(this.violations.map((v) => `${v.operation} → ${v.status}: ${v.problem}`))];
    this.violations.length = 0;
    throw new Error(`responses broke the OpenAPI document:\n${distinct.join('\n')}`);
  }
}

/** The first few reasons a value failed `validate`, each at its place in the value. */
function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
}

/** Keeps what `res` writes, to read once it has finished (a test's event streams end). */
function captureBody(res: ServerResponse): () => Buffer {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.write = ((...a: unknown[]) => (keep(a[0], a[1]), write(...a))) as ServerResponse['write'];
  res.end = ((...a: unknown[]) => (keep(a[0], a[1]), end(...a))) as ServerResponse['end'];
  return () => Buffer.concat(chunks);
}
