/**
 * Framework identifiers per detector category (docs/detectors.md explains each mapping):
 * - OWASP Top 10 for LLM Applications 2025: `LLM01:2025` prompt injection, `LLM02:2025` sensitive
 *   information disclosure, `LLM06:2025` excessive agency, `LLM07:2025` system prompt leakage.
 * - OWASP Agentic AI Threats and Mitigations (2025): `T2` tool misuse, `T3` privilege compromise,
 *   `T6` intent breaking and goal manipulation, `T11` unexpected RCE and code attacks,
 *   `T12` agent communication poisoning, `T15` human manipulation.
 * - MITRE ATLAS: `AML.T0051` LLM prompt injection (`.000` direct, `.001` indirect), `AML.T0054`
 *   LLM jailbreak, `AML.T0056` LLM meta prompt extraction, `AML.T0057` LLM data leakage.
 */
import type { DetectorCategory, Frameworks } from './detector.ts';

export const FRAMEWORKS: Readonly<Record<DetectorCategory, Frameworks>> = {
  prompt_injection: {
    owasp_agentic: ['T6', 'T2', 'T12'],
    owasp_llm: ['LLM01:2025', 'LLM07:2025'],
    mitre_atlas: ['AML.T0051', 'AML.T0051.000', 'AML.T0051.001', 'AML.T0054', 'AML.T0056'],
  },
  pii: {
    owasp_agentic: [],
    owasp_llm: ['LLM02:2025'],
    mitre_atlas: ['AML.T0057'],
  },
  toxicity: {
    // No entry of either OWASP list is about abusive language itself; T15 (human manipulation) is
    // the nearest agentic threat. Nothing in ATLAS fits, so none is claimed.
    owasp_agentic: ['T15'],
    owasp_llm: [],
    mitre_atlas: [],
  },
  sensitive_path: {
    owasp_agentic: ['T2', 'T3', 'T11'],
    owasp_llm: ['LLM02:2025', 'LLM06:2025'],
    mitre_atlas: ['AML.T0057'],
  },
  policy: { owasp_agentic: [], owasp_llm: [], mitre_atlas: [] },
};

/** A copy, so a caller can never mutate the shared table. */
export function frameworksFor(category: DetectorCategory): Frameworks {
  const f = FRAMEWORKS[category];
  return { owasp_agentic: [...f.owasp_agentic], owasp_llm: [...f.owasp_llm], mitre_atlas: [...f.mitre_atlas] };
}
