/**
 * Sample values the table's valid requests are built from: the canonical scan and policy bodies
 * (fixture.ts creates its resources with them too), filter values, and the receiver placeholder
 * of webhook bodies.
 */

/** The surface of the sample scans and of the surface filters. */
export const SURFACE = 'user_message';
/** A window (`since`, `until`) that holds every scan of a run. */
export const T0 = '2026-01-01T00:00:00.000Z';
export const T1 = '2030-01-01T00:00:00.000Z';

/** A tiny PNG header: enough for the magic-byte check of image scans. */
export const PNG_BASE64 = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).toString(
  'base64',
);

/** The canonical scan body (every optional part present, so the fuzz has every field to mutate). */
export function scanBody(policyId: string | null): Record<string, unknown> {
  return {
    kind: 'content',
    surface: SURFACE,
    content: { type: 'text', text: 'hello, please summarise my SSN 536-22-1234' },
    context: {
      agent_id: 'agent-1',
      session_id: 'sess-1',
      mcp_server: 'srv',
      trace_id: 'trace-1',
      end_user_id: 'user-1',
    },
    options: {
      capture: true,
      tier: 'fast',
      detectors: ['pii', 'prompt_injection'],
      ...(policyId ? { policy_id: policyId } : {}),
    },
  };
}

/** A policy body using every part of the grammar (rules, conditions, detector_config, MCP lists). */
export function policyBody(notify: string | null, name = 'reliability policy'): Record<string, unknown> {
  return {
    name,
    mode: 'enforce',
    enabled: true,
    is_default: false,
    rules: [
      {
        id: 'r1',
        name: 'block injections',
        when: {
          all_of: [
            { detector: 'prompt_injection', score_above: 0.9 },
            { any_of: [{ surface_in: [SURFACE] }, { context: 'agent_id', prefix: 'agent' }] },
            { not: { content_length_below: 3 } },
            { detector: 'pii', label_in: ['US_SSN'], min_confidence: 0.5 },
          ],
        },
        then: { action: 'blocked', notify: notify ? [notify] : [] },
      },
    ],
    default_action: 'allowed',
    detector_config: { toxicity: { enabled: true, warn_above: 0.5, flag_above: 0.7, block_above: 0.95 } },
    allowed_mcp_servers: ['srv'],
    blocked_mcp_servers: ['evil'],
    allowed_mcp_tools: [{ server: 'srv', tool_name: 'read' }],
    blocked_mcp_tools: [],
  };
}

/** Stands for the local receiver's URL in webhook bodies; `withReceiver` replaces it. */
export const RECEIVER_URL_PLACEHOLDER = 'https://receiver.invalid/hook';

/** `value` with every receiver placeholder replaced by `url` (bodies are plain JSON). */
export function withReceiver<T>(value: T, url: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(RECEIVER_URL_PLACEHOLDER, url)) as T;
}
