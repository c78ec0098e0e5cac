import type { PackReport } from './pack-checks.js';

/** One PASS/FAIL line per check, then the verdict. */
export function formatPackReport(report: PackReport, file: string): string {
  const width = Math.max(...report.checks.map((c) => c.name.length), 10);
  const lines = report.checks.map((c) => `${c.ok ? 'PASS' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.detail}`);
  const failed = report.checks.filter((c) => !c.ok).length;
  const verdict = report.valid
    ? `VERDICT: PASS — ${file}: export ${String(report.exportId)} of tenant ${String(report.tenantId)}, ${report.receipts} receipt(s), all ${report.checks.length} checks passed`
    : `VERDICT: FAIL — ${file}: ${failed} of ${report.checks.length} checks failed`;
  return `${lines.join('\n')}\n${verdict}\n`;
}
