/**
 * Rules of the repository that no compiler or linter holds: source files stay small enough to read,
 * and the docs' tables of decisions, webhook events and pruned tables list exactly what the code does.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DECISIONS, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '@presence/contract';
import { describe, expect, it } from 'vitest';
import { RETENTION_TABLES } from '../src/storage/repos/retention.js';
import { trackedFiles } from './support/markdown-links.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_SOURCE_LINES = 400;

/** The first column of the Markdown table that follows `heading`, each cell's code span. */
function firstColumnAfter(markdown: string, heading: string): string[] {
  const text = `\n${markdown}`;
  const from = text.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`no heading "${heading}"`);
  const lines = text.slice(from + 1).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const cells: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cell = /^\|\s*`([^`]+)`/.exec(line);
    if (cell !== null) cells.push(cell[1]!);
  }
  return cells;
}

const doc = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');

describe('house rules', () => {
  it(`keeps every source file under packages/*/src at ${MAX_SOURCE_LINES} lines or fewer`, () => {
    const sources = trackedFiles(ROOT).filter(
      (f) => /^packages\/[^/]+\/src\/.*\.(ts|js|mjs)$/.test(f) && !/\.test\.ts$/.test(f),
    );
    expect(sources.length).toBeGreaterThan(100);
    const tooLong = sources
      .map((f) => ({ file: f, lines: doc(f).split('\n').length - 1 }))
      .filter((s) => s.lines > MAX_SOURCE_LINES);
    expect(tooLong).toEqual([]);
  });

  it('lists every decision in the contract, in the verifier order, and nothing else', () => {
    const table = firstColumnAfter(doc('docs/api-contract.md'), '## 5. Decisions');
    expect(['PRESENCE_VERIFIED', ...table]).toEqual([...DECISIONS]);
  });

  it('lists every webhook event type in docs/webhooks.md, and nothing else', () => {
    const table = firstColumnAfter(doc('docs/webhooks.md'), '## Events');
    expect(table).toEqual([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]);
  });

  it('lists every table retention prunes in docs/operations.md, in pruning order, and nothing else', () => {
    const table = firstColumnAfter(doc('docs/operations.md'), '## Retention');
    // The last row is the idempotency-cleanup job's table, pruned by its own job.
    expect(table).toEqual([...RETENTION_TABLES, 'idempotency_keys']);
  });

  it('reads a table that differs from the code as different', () => {
    const markdown =
      '# T\n\n| A | B |\n| --- | --- |\n| `one` | x |\n| `two` | y |\n\nafter\n| `three` | z |\n';
    expect(firstColumnAfter(markdown, '# T')).toEqual(['one', 'two']);
    expect(() => firstColumnAfter(markdown, '# U')).toThrow('no heading');
  });
});
