import { z } from 'zod';
import {
  imageProblem,
  IMAGE_MEDIA_TYPES,
  renderToolset,
  schemaTooDeep,
  TOOLSET_SCHEMA_MAX_DEPTH,
} from '../../../engine/content.ts';
import { ACTIONS, SURFACES, TIERS } from '../../../engine/detector.ts';
import type { CreateScanInput, ListScansInput } from '../../../services/scan-input.ts';
import { instant, shortString as short, windowInOrder } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

export const scanIdParams = z.object({
  scan_id: z
    .string()
    .regex(new RegExp(`^(scan_)?${ULID}$`), 'must be scan_ (optional) followed by 26 Crockford base32 characters'),
});

const context = z.strictObject({
  agent_id: short.optional(),
  session_id: short.optional(),
  mcp_server: short.optional(),
  trace_id: short.optional(),
  end_user_id: short.optional(),
});

const options = z.strictObject({
  capture: z.boolean().default(false),
  detectors: z
    .array(z.string().min(1).max(64))
    .min(1, 'must name at least one detector (omit it to run all)')
    .max(32)
    .refine((d) => new Set(d).size === d.length, 'must not repeat a detector')
    .optional(),
  tier: z.enum(TIERS).default('auto'),
  policy_id: z
    .string()
    .regex(new RegExp(`^pol_${ULID}$`), 'must be pol_ followed by 26 Crockford base32 characters')
    .optional(),
});

/** The scan request; `maxChars` bounds the text a scan reads (SCAN_MAX_TEXT_CHARS). */
export function createScanBody(maxChars: number) {
  const text = z.strictObject({
    type: z.literal('text'),
    text: z.string().max(maxChars, `must be at most ${maxChars} characters`),
  });
  const image = z
    .strictObject({
      type: z.literal('image_base64'),
      data: z.string(),
      media_type: z.enum(IMAGE_MEDIA_TYPES).optional(),
    })
    .superRefine((v, ctx) => {
      const problem = imageProblem(v.data, v.media_type);
      if (problem) ctx.addIssue({ code: 'custom', path: ['data'], message: problem });
    });
  const tool = z.strictObject({
    server: short,
    name: short,
    description: z.string().max(maxChars).optional(),
    input_schema: z
      .record(z.string(), z.unknown())
      .refine(
        (v) => !schemaTooDeep(v),
        `must not nest deeper than ${TOOLSET_SCHEMA_MAX_DEPTH} levels (the scan reads no deeper)`,
      )
      .optional(),
  });
  const toolset = z.strictObject({
    type: z.literal('toolset'),
    tools: z.array(tool).min(1, 'must list at least one tool').max(1000, 'must list at most 1000 tools'),
  });

  // A validated body is what services/scan-input.ts declares: `satisfies` stops compiling when the two drift.
  return z
    .strictObject({
      kind: z.enum(['content', 'toolset']),
      surface: z.enum(SURFACES),
      content: z.discriminatedUnion('type', [text, image, toolset]),
      context: context.default({}),
      options: options.default({ capture: false, tier: 'auto' }),
    })
    .superRefine((v, ctx) => {
      if (v.kind === 'toolset' && v.content.type !== 'toolset')
        ctx.addIssue({
          code: 'custom',
          path: ['content', 'type'],
          message: 'must be "toolset" when kind is "toolset"',
        });
      if (v.kind === 'content' && v.content.type === 'toolset')
        ctx.addIssue({
          code: 'custom',
          path: ['content', 'type'],
          message: 'must be "text" or "image_base64" when kind is "content"',
        });
      if (v.content.type === 'toolset' && renderToolset(v.content.tools).length > maxChars) {
        ctx.addIssue({
          code: 'custom',
          path: ['content', 'tools'],
          message: `renders to more than ${maxChars} characters of text`,
        });
      }
    }) satisfies z.ZodType<CreateScanInput>;
}

export type CreateScanBody = z.infer<ReturnType<typeof createScanBody>>;
export type ScanContent = CreateScanBody['content'];

export const listScansQuery = pageQuery
  .extend({
    agent_id: short.optional(),
    session_id: short.optional(),
    end_user_id: short.optional(),
    end_user_id_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
      .optional(),
    action: z.enum(ACTIONS).optional(),
    surface: z.enum(SURFACES).optional(),
    since: instant.optional(),
    until: instant.optional(),
  })
  .refine((q) => !(q.end_user_id !== undefined && q.end_user_id_hash !== undefined), {
    path: ['end_user_id_hash'],
    message: 'give end_user_id or end_user_id_hash, not both',
  })
  .refine(windowInOrder, { path: ['until'], message: 'must be after since' });

// A validated query is what services/scan-input.ts declares: this stops compiling when the two drift.
listScansQuery satisfies z.ZodType<ListScansInput>;

export type ListScansQuery = z.infer<typeof listScansQuery>;
