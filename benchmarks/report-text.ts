/** The benchmark report as the terminal shows it: runs, ratios, scaling, targets. */
import { formatCpu } from './cpu.ts';
import { formatSummary } from './measure.ts';
import type { BenchReport } from './report-html.ts';
import { formatServiceMetrics } from './service-metrics.ts';

/** The report's text; `written` names the files it was saved to. */
export function formatReport(r: BenchReport, written: string): string {
  const pad = ''.padEnd(40);
  const out: string[] = ['', 'runs'];
  for (const run of r.runs)
    out.push(
      `  ${run.id.padEnd(40)} ${formatSummary(run.summary)}${run.cpu ? `\n  ${pad} ${formatCpu(run.cpu)}` : ''}${run.service_metrics ? `\n  ${pad} ${formatServiceMetrics(run.service_metrics)}` : ''}`,
    );
  out.push(
    'ratios (req/s; the headline: scans / durable-echo is the share of the possible, durable-echo / echo the price of durability)',
  );
  for (const x of r.ratios) out.push(`  ${x.name.padEnd(62)} ${x.value}`);
  if (r.scaling) {
    out.push(r.settings.repeat > 1 ? `scaling (median of ${r.settings.repeat} rounds)` : 'scaling');
    for (const s of r.scaling)
      out.push(
        `  ${String(s.processes).padStart(2)} processes  ${s.req_per_s} req/s  efficiency ${s.efficiency}  vs echo ${s.vs_echo}  vs durable echo ${s.vs_durable_echo}`,
      );
  }
  if (r.targets.length) out.push('targets');
  for (const t of r.targets) out.push(`  ${t.met ? 'met    ' : 'not met'}  ${t.name}: ${t.value} (wanted ${t.target})`);
  out.push(`written ${written}`);
  return `${out.join('\n')}\n`;
}
