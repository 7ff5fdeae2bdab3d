/**
 * The response schemas: every JSON body the API answers is a zod schema registered here under a
 * name, and becomes `components.schemas.<name>` of the OpenAPI document (api/openapi/). A presenter
 * returns `z.output<typeof schema>`, so the compiler holds it to the document, and the test harness
 * holds every real response of the integration suite to it.
 */
import { z } from 'zod';

/** Name → schema of every response body; read by the OpenAPI document. */
export const resources = z.registry<{ id: string; description?: string }>();

/** Registers `schema` as the response schema `id` (unique) and returns it. */
export function resource<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  if (resources.get(schema)) throw new Error(`response schema ${id} is registered twice`);
  resources.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/** An instant as the API writes it (api/present.ts `iso`): RFC 3339 in UTC. */
export const instant = z.iso.datetime();

/** `instant`, or null. */
export const nullableInstant = instant.nullable();

/** A page of a list (api/pagination.ts `page`): the items, newest first, and the next page's cursor. */
export function pageOf<T extends z.ZodType>(id: string, item: T) {
  return resource(
    id,
    z.object({
      data: z.array(item),
      next_cursor: z.string().nullable().describe('Pass as `cursor` to read the next page; null on the last page.'),
    }),
  );
}

/**
 * The registered name of a response schema.
 * @throws Error for a schema not registered with `resource` (every response body must be named).
 */
export function resourceName(schema: z.ZodType): string {
  const meta = resources.get(schema);
  if (!meta) throw new Error('a route responds with a schema not registered with resource()');
  return meta.id;
}

/** `components.schemas`: every registered response schema as JSON Schema 2020-12, output side. */
export function resourceSchemas(): Record<string, Record<string, unknown>> {
  const { schemas } = z.toJSONSchema(resources, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, json] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = json as Record<string, unknown>;
    out[id] = rest;
  }
  return out;
}
