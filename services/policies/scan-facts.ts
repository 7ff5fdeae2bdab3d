import type { ScoredResult } from '../../engine/decision.ts';
import type { ScanFacts } from '../../engine/policy.ts';
import type { ScanRow } from '../../store/scans.ts';

/** A stored scan's facts: its scores, with each detector's finding items. */
export function factsOfScan(
  row: Pick<
    ScanRow,
    'surface' | 'agent_id' | 'session_id' | 'mcp_server' | 'mcp_tools' | 'content_chars' | 'scores' | 'findings'
  >,
): ScanFacts {
  const items = new Map<string, ScoredResult['items']>();
  for (const f of row.findings as { detector: string; items: ScoredResult['items'] }[]) items.set(f.detector, f.items);
  const results: ScoredResult[] = [];
  for (const [detector, score] of Object.entries(row.scores))
    results.push({ detector, score, items: items.get(detector) ?? [] });
  return {
    surface: row.surface,
    agent_id: row.agent_id,
    session_id: row.session_id,
    mcp_server: row.mcp_server,
    mcp_tools: row.mcp_tools,
    content_length: row.content_chars,
    results,
  };
}
