/** What every served text classifier offers, whatever its runtime (`text-classifier.ts` loads them). */
import type { ModelEntry } from './manifest.ts';

export interface TextClassifier {
  readonly entry: ModelEntry;
  /** One score in [0, 1] per text, in one session run; 0 for texts without features. */
  scoreBatch(texts: string[]): Promise<number[]>;
  /** Frees the native session; call before the thread ends (onnxruntime aborts the process otherwise). */
  release(): Promise<void>;
}
