/**
 * What the engine needs of the models it does not run in-process: scores and entities for a batch of
 * texts, by model id, before a deadline. workers/dispatcher.ts implements it with the thread pool; the
 * engine sees only this interface and the three errors below, which say what went wrong, not where.
 */
import type { Entity } from '../inference/token-classifier.ts';

/** Runs a named model over texts. Every call may throw the errors below. */
export interface ModelClient {
  /** One score per text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError */
  classify(model: string, texts: string[], deadlineAt: number): Promise<number[]>;
  /** The entities of each text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError */
  entities(model: string, texts: string[], deadlineAt: number): Promise<Entity[][]>;
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
