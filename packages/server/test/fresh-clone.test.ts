/**
 * What a fresh clone needs: after `npm install` and a build, the workspace bins answer, no tracked
 * file reaches outside the repository for data or documentation, and every link, "docs/…" path,
 * ADR and contract heading the repository names exists in it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  brokenDocReferences,
  brokenMarkdownLinks,
  headingAnchors,
  trackedFiles as tracked,
} from './support/markdown-links.js';
import { serviceBuilt } from './support/server-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

const trackedFiles = (): string[] => tracked(ROOT);
/** The checks' own examples of broken references: this file and its fixtures. */
const EXAMPLES = ['packages/server/test/fresh-clone.test.ts', 'packages/server/test/fixtures/doc-links/'];
const checkedFiles = (): string[] => trackedFiles().filter((f) => !EXAMPLES.some((e) => f.startsWith(e)));
const HAS_GIT = existsSync(`${ROOT}.git`);

describe('a fresh clone', () => {
  it.skipIf(!HAS_GIT)('has no file that points outside the repository', () => {
    // Built from parts so that this file does not match itself.
    const outside = ['..', 'shared', ''].join('/');
    const offenders = trackedFiles().filter((f) => {
      if (/\.(zip|png|ico|sqlite)$/.test(f)) return false;
      return readFileSync(`${ROOT}${f}`, 'utf8').includes(outside);
    });
    expect(offenders).toEqual([]);
  });

  it.skipIf(!HAS_GIT)('resolves every relative link of every Markdown file, anchors included', () => {
    expect(brokenMarkdownLinks(ROOT, checkedFiles())).toEqual([]);
  });

  it.skipIf(!HAS_GIT)('names only docs, ADRs and contract headings that exist', () => {
    expect(brokenDocReferences(ROOT, checkedFiles())).toEqual([]);
  });

  it('spells heading anchors as GitHub does, so that the two checks above can fail', () => {
    const anchors = headingAnchors(
      '# A\n## 6. Receipts\n```\n## not a heading\n```\n## Export `pack` (v1)\n## A\n',
    );
    expect([...anchors]).toEqual(['a', '6-receipts', 'export-pack-v1', 'a-1']);
    const root = fileURLToPath(new URL('./fixtures/doc-links/', import.meta.url));
    const files = ['guide.md', 'code.ts', 'docs/doc.md', 'docs/adr/0001-one.md'];
    expect(brokenMarkdownLinks(root, files).map((b) => b.reference)).toEqual([
      'missing.md',
      'guide.md#no-such-heading',
    ]);
    expect(brokenDocReferences(root, files).map((b) => b.reference)).toEqual([
      'docs/nowhere.md',
      'adr/0002-receipt-seq.md',
      'contract §4',
      'ADR 99',
    ]);
  });

  it.skipIf(!serviceBuilt('bin checks'))('links the presence and presence-verify bins at install', () => {
    const help = execFileSync(`${BIN}presence`, ['help'], { encoding: 'utf8' });
    expect(help).toMatch(/^Usage:\n {2}presence serve/);
    const verify = execFileSync(`${BIN}presence-verify`, ['--help'], { encoding: 'utf8' });
    expect(verify).toMatch(/^Usage: presence-verify <pack\.zip>/);
  });
});
