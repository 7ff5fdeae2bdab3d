/**
 * What the scan service takes: a validated scan request and a validated list query. The route
 * schemas (api/routes/scans/schema.ts) check that what they accept is exactly this.
 */
import type { ImageMediaType, ToolDefinition } from '../engine/content.ts';
import type { Action, Surface, Tier } from '../engine/detector.ts';

/** The content of a scan: text, an image, or an MCP toolset (whose rendering is the text scanned). */
export type ScanContent =
  | { type: 'text'; text: string }
  | { type: 'image_base64'; data: string; media_type?: ImageMediaType | undefined }
  | { type: 'toolset'; tools: ToolDefinition[] };

/** Who and what a scan is about; stored with it (the end user only as a hash). */
export interface ScanContext {
  agent_id?: string | undefined;
  session_id?: string | undefined;
  mcp_server?: string | undefined;
  trace_id?: string | undefined;
  end_user_id?: string | undefined;
}

export interface ScanOptions {
  /** Store the content with the scan (for the retention period). */
  capture: boolean;
  /** Run only these detectors (all when absent). */
  detectors?: string[] | undefined;
  tier: Tier;
  /** The policy that decides the scan (the organization's default when absent). */
  policy_id?: string | undefined;
}

/** A validated scan request. Its content holds only storable text (api/storable-text.ts refused the rest). */
export interface CreateScanInput {
  kind: 'content' | 'toolset';
  surface: Surface;
  content: ScanContent;
  context: ScanContext;
  options: ScanOptions;
}

/** A validated scan list query: filters and page size. */
export interface ListScansInput {
  agent_id?: string | undefined;
  session_id?: string | undefined;
  /** Hashed before the lookup; at most one of `end_user_id` and `end_user_id_hash`. */
  end_user_id?: string | undefined;
  end_user_id_hash?: string | undefined;
  action?: Action | undefined;
  surface?: Surface | undefined;
  /** Inclusive. */
  since?: Date | undefined;
  /** Exclusive. */
  until?: Date | undefined;
  limit: number;
}
