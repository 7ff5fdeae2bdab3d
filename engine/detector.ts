/**
 * The detector contract. A detector has a name, a version, a category, the surfaces it supports,
 * default thresholds and framework tags; `detect` returns a result (findings are data: a detector
 * never throws to say "unsafe"). Spans are in the ORIGINAL text's UTF-16 offsets (the engine maps
 * them back from the normalised text through `NormalizedText.toOriginal`).
 */
import type { Thresholds } from '../inference/manifest.ts';
import type { Pace } from '../lib/steps.ts';
import type { NormalizedText } from './normalize.ts';

export const SURFACES = [
  'user_message',
  'assistant_output',
  'tool_result',
  'tool_params',
  'document',
  'agent_message',
  'mcp_resource',
  'mcp_tool_description',
] as const;
export type Surface = (typeof SURFACES)[number];

/**
 * Surface groups: where content comes from decides what is normal there, so a detector's thresholds
 * stand for a false-alarm rate measured per group. `prompt` is what a person or agent addresses to a
 * model; `document` is content a model reads or writes that nobody addressed to it (documents, tool
 * results and parameters, MCP resources and tool descriptions, model output).
 */
export const SURFACE_GROUPS = ['prompt', 'document'] as const;
export type SurfaceGroup = (typeof SURFACE_GROUPS)[number];
const PROMPT_SURFACES: ReadonlySet<Surface> = new Set<Surface>(['user_message', 'agent_message']);
export function surfaceGroup(surface: Surface): SurfaceGroup {
  return PROMPT_SURFACES.has(surface) ? 'prompt' : 'document';
}

export const TIERS = ['fast', 'accurate', 'auto'] as const;
export type Tier = (typeof TIERS)[number];

export const ACTIONS = ['blocked', 'flagged', 'warned', 'allowed'] as const;
export type Action = (typeof ACTIONS)[number];

/** One thing a detector found, with the evidence to explain a decision. */
export interface FindingItem {
  /** The matched text, taken from the original content at `span`. */
  text: string;
  label: string;
  /** 0..1 */
  confidence: number;
  /** `regex`, `ner`, `rule`, `model:<id>@<version>`, … */
  source: string;
  /** [start, end) UTF-16 offsets into the original text. */
  span: [number, number];
}

export interface Frameworks {
  owasp_agentic: string[];
  owasp_llm: string[];
  mitre_atlas: string[];
}

export type DetectorCategory = 'prompt_injection' | 'pii' | 'toxicity' | 'sensitive_path' | 'policy';

/** What one detector reports for one scan. */
export interface DetectorResult {
  detector: string;
  /** The detector's score for the whole content, 0..1 (max over items / chunks); thresholds apply to it. */
  score: number;
  items: FindingItem[];
  /** Thresholds calibrated for the model that produced `score`, when it differs from the detector's defaults (e.g. the fast fallback). */
  thresholds?: Thresholds;
  /** Set when the detector did not run as asked (e.g. accurate model unloaded → fast fallback). */
  note?: string;
}

/** Input handed to every detector: the content normalised once per scan. */
export interface DetectorInput {
  text: NormalizedText;
  surface: Surface;
  tier: Tier;
  /** Epoch ms by which model inference must finish (pool-backed detectors); absent = no deadline. */
  deadlineAt?: number;
  /** Aborted when the scan no longer wants results (pool-backed detectors pass it on with their model requests). */
  signal?: AbortSignal;
  /** Whose scan this is (the organization): the model pool takes tenants in turn. */
  tenant?: string;
  /**
   * Set for a long text: in-process work runs paced (lib/steps.ts), a slice at a time with the event loop
   * turning between slices, and the detector answers with a promise. Absent: it runs at once.
   */
  pace?: Pace;
}

/** Main-thread detectors answer synchronously; pool-backed ones return a promise. */
export interface Detector {
  readonly name: string;
  readonly version: string;
  /** Model id@version or `rules` for rule/regex-only detectors. */
  readonly model: string;
  /** `score`: one probability per content; `entities`: spans with labels. */
  readonly kind: 'score' | 'entities';
  readonly category: DetectorCategory;
  readonly surfaces: readonly Surface[];
  readonly thresholds: Thresholds;
  /**
   * The benign false-alarm rate each default threshold stands for, the same in every surface group and
   * tier (the detector calibrates its score per group: `detectors/calibration.ts`); absent when uncalibrated.
   */
  readonly falseAlarmRates?: Thresholds;
  readonly frameworks: Frameworks;
  /** Load model assets once (idempotent). */
  load?(): Promise<void>;
  detect(input: DetectorInput): DetectorResult | Promise<DetectorResult>;
}

/** Every text surface: detectors that read text read it on all eight. */
export const ALL_SURFACES: readonly Surface[] = SURFACES;
