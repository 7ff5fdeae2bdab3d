/**
 * The scan pipeline: normalise once, start the pool-backed detectors (they queue for a worker),
 * run the cheap in-process ones meanwhile, then decide. No HTTP, no SQL. A repeated text's detector
 * results may come from a `ResultCache` instead; the decision is always made afresh.
 */
import { createHash } from 'node:crypto';
import type { Detector, DetectorResult, Surface, Tier } from './detector.ts';
import { normalize } from './normalize.ts';
import {
  disabledDetectors,
  evaluatePolicy,
  type CompiledPolicy,
  type McpToolRef,
  type PolicyDecision,
} from './policy.ts';
import { abortReason } from './model-client.ts';
import type { DetectorRegistry } from './registry.ts';
import { TenantGate } from './tenant-gate.ts';
import { SliceTurns } from '../lib/steps.ts';

export interface ScanInput {
  surface: Surface;
  /** The text to scan; null for content no detector reads yet (images). */
  text: string | null;
  tier: Tier;
  /** Detector names (validated by the caller against the registry); absent = every enabled detector. */
  detectors?: readonly string[];
  /** The policy that decides (null: built-in thresholds). Its disabled detectors run only when named. */
  policy?: CompiledPolicy | null;
  /**
   * Results the caller already computed for some of the selected detectors, used as they are (those
   * detectors do not run): the legacy API's long mode scores a long text chunk by chunk and records
   * the scan with that result instead of scoring the whole text a second time.
   */
  precomputed?: ReadonlyMap<string, DetectorResult>;
  /**
   * Whose content this is (the organization): detector results are cached per scope, so one scope never
   * answers from another's content. Absent = not cached.
   */
  cacheScope?: string;
  /** What policy rules and MCP lists read besides the findings. */
  context?: {
    agent_id?: string | null;
    session_id?: string | null;
    mcp_server?: string | null;
    mcp_tools?: readonly McpToolRef[] | null;
  };
}

export interface DetectorRun {
  result: DetectorResult;
  /** Wall time from the scan's start until this detector finished. */
  ms: number;
}

export interface ScanOutcome {
  /** In registry order, whatever order they finished in. */
  runs: DetectorRun[];
  decision: PolicyDecision;
}

export interface ScanOptions {
  deadlineAt: number;
  /**
   * Aborted when nobody waits for the scan any more (its client went away): its waiting model work is
   * dropped and the scan rejects with the signal's reason (ModelCancelledError when it gives none).
   */
  signal?: AbortSignal;
  /** Whose scan this is (the organization): the model pool serves tenants in turn. */
  tenant?: string;
  /** Called as each detector completes (for streaming). */
  onResult?(run: DetectorRun): void;
}

export interface EngineObserver {
  detector(name: string, tier: Tier, seconds: number): void;
  /** A scan the result cache could not answer by design (no scope, precomputed results, no text). */
  cacheSkipped?(): void;
  /** A scan that took the results of an identical scan already running (a burst of one text). */
  cacheJoined?(): void;
}

/**
 * Detector results of earlier scans by `resultCacheKey`. Implementations (services/result-cache.ts)
 * count their own hits and misses, and answer a miss rather than fail or wait long.
 */
export interface ResultCache {
  /** `text` is the scan's own (the key's): what an implementation that does not keep matched text rebuilds it from. */
  get(key: string, text: string): DetectorResult[] | undefined | Promise<DetectorResult[] | undefined>;
  /** Never throws, never makes the scan wait (a shared store is written in the background). */
  set(key: string, results: readonly DetectorResult[]): void;
}

/**
 * The cache key of a scan's detector results: SHA-256 over the scope, surface, tier, each selected
 * detector's name, version and model (registry order) and the exact original text. No policy or
 * threshold is in it: detectors never see the policy (a result's `thresholds` are its model's calibration).
 */
export function resultCacheKey(
  scope: string,
  surface: Surface,
  tier: Tier,
  detectors: readonly Detector[],
  text: string,
) {
  const header = JSON.stringify([scope, surface, tier, detectors.map((d) => [d.name, d.version, d.model])]);
  return createHash('sha256').update(header).update('\n').update(text).digest('base64url');
}

/** How the engine treats long texts (absent: every text runs at once, unbounded). */
export interface LongTextOptions {
  /** A text of at least this many characters is long. */
  chars: number;
  /** Milliseconds of in-process detection per slice: a long text's scan lets the event loop turn between slices. */
  sliceMs: number;
  /** Long scans one tenant may have in progress at once; more wait their turn (tenant-gate.ts). */
  perTenant: number;
}

export class ScanEngine {
  private readonly gate: TenantGate | null;

  constructor(
    readonly registry: DetectorRegistry,
    private readonly observer?: EngineObserver,
    private readonly cache?: ResultCache,
    private readonly longText?: LongTextOptions,
  ) {
    this.gate = longText ? new TenantGate(longText.perTenant) : null;
  }

  /** One slice of long scans' in-process work per turn of the event loop, tenants in turn. */
  private readonly turns = new SliceTurns();

  /**
   * Cacheable scans being computed, by cache key: an identical scan arriving meanwhile waits for that
   * one's results instead of computing them again (it computes itself when the first fails or degrades).
   */
  private readonly inflight = new Map<string, Promise<DetectorResult[] | undefined>>();

  /** @throws ModelOverloadedError / ModelDeadlineError (engine/model-client.ts) when model inference cannot happen in time. */
  async scan(input: ScanInput, opts: ScanOptions): Promise<ScanOutcome> {
    const detectors = this.select(input);
    if (input.text === null || detectors.length === 0) {
      if (this.cache) this.observer?.cacheSkipped?.();
      return { runs: [], decision: this.decide(input, []) };
    }
    const key = this.cacheKeyOf(input, input.text, detectors);
    if (key === undefined) return this.compute(input, detectors, opts);
    const asked = performance.now();
    const running = this.inflight.get(key);
    // a copy: the first scan's own results go on into its response
    let shared = running ? structuredClone(await running) : undefined;
    if (shared) this.observer?.cacheJoined?.();
    let release: ((results: DetectorResult[] | undefined) => void) | undefined;
    if (!shared && !this.inflight.has(key)) this.inflight.set(key, new Promise((resolve) => (release = resolve)));
    try {
      if (!shared) {
        const found = this.cache!.get(key, input.text);
        shared = found instanceof Promise ? await found : found;
      }
      if (shared && shared.length === detectors.length && shared.every((r, i) => r.detector === detectors[i]!.name)) {
        const runs = shared.map((result) => ({ result, ms: performance.now() - asked }));
        for (const run of runs) opts.onResult?.(run);
        release?.(shared);
        return { runs, decision: this.decide(input, shared) };
      }
      const outcome = await this.compute(input, detectors, opts);
      const results = outcome.runs.map((r) => r.result);
      // A degraded result (a model that could not answer, a fallback) is not kept: the next scan tries again.
      const clean = results.every((r) => r.note === undefined);
      if (clean) this.cache!.set(key, results);
      release?.(clean ? results : undefined);
      return outcome;
    } finally {
      if (release) {
        release(undefined); // no-op when already settled
        this.inflight.delete(key);
      }
    }
  }

  private async compute(input: ScanInput, detectors: Detector[], opts: ScanOptions): Promise<ScanOutcome> {
    const long = this.longText !== undefined && input.text!.length >= this.longText.chars;
    const release = long ? await this.gate!.acquire(opts.tenant ?? '', opts.deadlineAt, opts.signal) : null;
    try {
      return await this.run(input, detectors, opts, long ? this.longText!.sliceMs : undefined);
    } finally {
      release?.();
    }
  }

  private async run(
    input: ScanInput,
    detectors: Detector[],
    opts: ScanOptions,
    sliceMs: number | undefined,
  ): Promise<ScanOutcome> {
    const text = normalize(input.text!);
    const started = performance.now();
    const runs: (DetectorRun | undefined)[] = new Array(detectors.length);
    const finish = (i: number, result: DetectorResult) => {
      const ms = performance.now() - started;
      const run = { result, ms };
      runs[i] = run;
      this.observer?.detector(detectors[i]!.name, input.tier, ms / 1000);
      opts.onResult?.(run);
    };
    // One detector failing (a deadline, an overload) or the caller going away ends the scan: the other
    // detectors' model requests still waiting are dropped rather than run for nobody.
    const stop = new AbortController();
    const onAbort = () => stop.abort(abortReason(opts.signal!));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    let firstFailure: { error: unknown } | null = null;
    const fail = (error: unknown) => {
      firstFailure ??= { error };
      stop.abort(error);
      throw error;
    };
    const detectorInput = {
      text,
      surface: input.surface,
      tier: input.tier,
      deadlineAt: opts.deadlineAt,
      signal: stop.signal,
      tenant: opts.tenant,
      pace:
        sliceMs === undefined
          ? undefined
          : { sliceMs, turns: this.turns, tenant: opts.tenant ?? '', signal: stop.signal },
    };
    const pending: Promise<void>[] = [];
    // Every detect() is called before any result is reported, so pool requests are queued (and
    // their inference overlaps the in-process detectors) before the first streaming event is written.
    const ready: [number, DetectorResult][] = [];
    for (const [i, d] of detectors.entries()) {
      // a long text: the event loop turns between detectors too (each starts with a slice of its own work)
      if (sliceMs !== undefined && i > 0) await this.turns.next(opts.tenant ?? '');
      if (stop.signal.aborted) break;
      const out = input.precomputed?.get(d.name) ?? d.detect(detectorInput);
      if (out instanceof Promise) {
        const done = out.then((r) => finish(i, r), fail);
        done.catch(() => undefined); // settled below; a failure while later detectors start is not unhandled
        pending.push(done);
      } else ready.push([i, out]);
    }
    for (const [i, result] of ready) finish(i, result);
    try {
      await Promise.allSettled(pending);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    if (firstFailure) throw (firstFailure as { error: unknown }).error;
    if (stop.signal.aborted) throw abortReason(stop.signal);
    const done = runs as DetectorRun[];
    return {
      runs: done,
      decision: this.decide(
        input,
        done.map((r) => r.result),
      ),
    };
  }

  /** The decision for these results under the input's policy (or the built-in thresholds). */
  private decide(input: ScanInput, results: DetectorResult[]): PolicyDecision {
    const c = input.context ?? {};
    return evaluatePolicy(
      input.policy ?? null,
      {
        surface: input.surface,
        agent_id: c.agent_id ?? null,
        session_id: c.session_id ?? null,
        mcp_server: c.mcp_server ?? null,
        mcp_tools: c.mcp_tools ?? null,
        content_length: input.text?.length ?? 0,
        results,
      },
      this.thresholdsOf,
    );
  }

  /** A detector's built-in thresholds (never crossed for a name the registry does not know). */
  readonly thresholdsOf = (name: string) => this.registry.get(name)?.thresholds ?? NEVER;

  /** The result cache's key for this scan, or undefined when it is not cached. */
  private cacheKeyOf(input: ScanInput, text: string, detectors: readonly Detector[]): string | undefined {
    if (!this.cache) return undefined;
    if (input.cacheScope === undefined || input.precomputed !== undefined) {
      this.observer?.cacheSkipped?.();
      return undefined;
    }
    return resultCacheKey(input.cacheScope, input.surface, input.tier, detectors, text);
  }

  private select(input: ScanInput): Detector[] {
    if (input.detectors) {
      const wanted = new Set(input.detectors);
      return this.registry.detectors.filter((d) => wanted.has(d.name));
    }
    const off = disabledDetectors(input.policy ?? null);
    return off.size === 0 ? this.registry.defaults : this.registry.defaults.filter((d) => !off.has(d.name));
  }
}

const NEVER = { warn_above: 1, flag_above: 1, block_above: 1 };
