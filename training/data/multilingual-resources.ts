/**
 * The shared multilingual training resources (`../shared/datasets/multilingual/`, read at training time,
 * never copied; README there): benign Universal Dependencies sentences in 46 languages.
 */
import path from 'node:path';
import { datasetsDir, readJsonl } from './datasets.ts';

export interface LangText {
  text: string;
  lang: string;
}

/** Benign sentences, 20–400 characters, up to 500 per language. */
export function multilingualBenign(): LangText[] {
  return readJsonl<LangText>(path.join(datasetsDir(), 'multilingual', 'benign_sentences.jsonl')).filter(
    (r) => typeof r.text === 'string' && r.text.trim() !== '',
  );
}
