import type { z } from 'zod';
import type { Simulation } from '../../../services/policies/simulate.ts';
import type { PolicyRow } from '../../../store/policies.ts';
import type { Policy, PolicySimulation } from './responses.ts';

type SimulationOut = z.output<typeof PolicySimulation>;

/** The Policy resource: the spec's fields plus `is_default`. */
export function presentPolicy(p: PolicyRow): z.output<typeof Policy> {
  const d = p.document;
  return {
    id: p.id,
    revision_id: p.revision_id,
    name: p.name,
    mode: p.mode,
    enabled: p.enabled,
    is_default: p.is_default,
    rules: d.rules,
    default_action: d.default_action,
    detector_config: d.detector_config,
    allowed_mcp_servers: d.allowed_mcp_servers,
    blocked_mcp_servers: d.blocked_mcp_servers,
    allowed_mcp_tools: d.allowed_mcp_tools,
    blocked_mcp_tools: d.blocked_mcp_tools,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/**
 * A simulation as the document states it. The engine types a decision's reasons as strings; they are
 * the ones `ScanDecision` lists (engine/decision.ts, engine/policy.ts).
 */
export function presentSimulation(s: Simulation): SimulationOut {
  return { ...s, decision: s.decision as SimulationOut['decision'] };
}
