/**
 * What the engine needs of the models it does not run in-process: scores and entities for a batch of
 * texts, by model id, before a deadline. workers/dispatcher.ts implements it with the thread pool; the
 * engine sees only this interface and the three errors below, which say what went wrong, not where.
 */
import type { CharLmScore } from '../inference/char-lm.ts';
import type { Entity } from '../inference/token-classifier.ts';

/** What a model request carries besides its texts: when it is too late, who asked, and how to call it off. */
export interface ModelCall {
  /** Epoch ms by which the inference must finish. */
  deadlineAt: number;
  /**
   * Aborted when the answer is no longer wanted (the client went away, another detector of the scan
   * failed): the request's waiting work is dropped and it rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Whose work this is (the organization): the pool shares its threads between tenants in turn. */
  tenant?: string;
}

/** Runs a named model over texts. Every call may throw the errors below. */
export interface ModelClient {
  /** One score per text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError, ModelCancelledError */
  classify(model: string, texts: string[], call: ModelCall): Promise<number[]>;
  /** The entities of each text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError, ModelCancelledError */
  entities(model: string, texts: string[], call: ModelCall): Promise<Entity[][]>;
  /**
   * A character language model's most surprising window of each text (pi-suffix), where the client runs
   * such models. @throws as above
   */
  suffix?(model: string, texts: string[], call: ModelCall): Promise<CharLmScore[]>;
}

/** Too much work is waiting for the models: the caller answers 503 with Retry-After. */
export class ModelOverloadedError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('the model worker queue is full');
    this.name = 'ModelOverloadedError';
  }
}

/** The request's deadline passed before its inference finished: the caller answers 504. */
export class ModelDeadlineError extends Error {
  constructor() {
    super('the scan deadline passed while waiting for model inference');
    this.name = 'ModelDeadlineError';
  }
}

/** The scan called its inference off (its client went away); nobody waits for an answer. */
export class ModelCancelledError extends Error {
  constructor() {
    super('the scan was abandoned before its inference finished');
    this.name = 'ModelCancelledError';
  }
}

/** What an aborted signal stands for: its reason when that is one of ours (an Error), else a cancellation. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error && signal.reason.name !== 'AbortError'
    ? signal.reason
    : new ModelCancelledError();
}

/** The model could not answer (not loaded, worker crashed, inference failed, shutting down): the detector falls back. */
export class ModelUnavailableError extends Error {
  constructor(
    readonly reason: 'model_not_loaded' | 'worker_crashed' | 'inference_failed' | 'pool_closed',
    message: string,
  ) {
    super(message);
    this.name = 'ModelUnavailableError';
  }
}
