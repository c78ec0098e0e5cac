/**
 * The repository's own cross-references, read from its tracked files: Markdown links, "docs/…" paths
 * and ADR numbers named in prose or comments, and heading anchors as GitHub spells them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export function trackedFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export interface BrokenReference {
  file: string;
  reference: string;
  why: string;
}

function stripCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every relative link of every tracked Markdown file: its file exists, and its anchor is a heading. */
export function brokenMarkdownLinks(root: string, files: string[]): BrokenReference[] {
  const broken: BrokenReference[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    let found = anchorsOf.get(file);
    if (found === undefined) {
      found = headingAnchors(readFileSync(join(root, file), 'utf8'));
      anchorsOf.set(file, found);
    }
    return found;
  };
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    const text = stripCode(readFileSync(join(root, file), 'utf8'));
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const reference = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) continue; // https:, mailto: and the like
      const [path, anchor] = reference.split('#', 2) as [string, string | undefined];
      const target = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
      if (!existsSync(join(root, target))) {
        broken.push({ file, reference, why: 'no such file' });
      } else if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor)) {
        broken.push({ file, reference, why: 'no such heading' });
      }
    }
  }
  return broken;
}

const TEXT = /\.(md|ts|mts|js|mjs|cjs|json|ya?ml|sh|py|go|txt)$|(^|\/)(Dockerfile|run)$/;

/**
 * Paths "docs/…" and "adr/NNNN-….md", heading anchors of docs/*.md, and "ADR N" numbers named
 * anywhere in tracked text (comments, prose, scripts) name something that exists.
 */
export function brokenDocReferences(root: string, files: string[]): BrokenReference[] {
  const broken: BrokenReference[] = [];
  const adrs = files.filter((f) => /^docs\/adr\/\d{4}-.*\.md$/.test(f));
  const adrNumbers = new Set(adrs.map((f) => Number(/(\d{4})-/.exec(f)![1])));
  for (const file of files.filter((f) => TEXT.test(f) && !f.endsWith('openapi.json'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/(?<![\w./-])docs\/([\w./-]*[\w])(?:#([\w-]+))?/g)) {
      const target = `docs/${match[1]!}`;
      if (!/\.\w+$/.test(target) && !existsSync(join(root, target))) continue; // a sentence's "docs/" prefix
      if (!existsSync(join(root, target))) {
        broken.push({ file, reference: match[0], why: 'no such file' });
      } else if (match[2] !== undefined && target.endsWith('.md')) {
        if (!headingAnchors(readFileSync(join(root, target), 'utf8')).has(match[2])) {
          broken.push({ file, reference: match[0], why: 'no such heading' });
        }
      }
    }
    for (const match of text.matchAll(/(?<![\w/.-])adr\/(\d{4}-[\w.-]+\.md)/g)) {
      if (!existsSync(join(root, 'docs/adr', match[1]!))) {
        broken.push({ file, reference: match[0], why: 'no such ADR file' });
      }
    }
    for (const match of text.matchAll(/\bcontract §\s?\d+/g)) {
      broken.push({ file, reference: match[0], why: 'cite docs/api-contract.md#<heading> instead' });
    }
    for (const match of text.matchAll(/\bADRs? (\d{1,4})\b/g)) {
      if (!adrNumbers.has(Number(match[1]))) {
        broken.push({ file, reference: match[0], why: 'no ADR with that number' });
      }
    }
  }
  return broken;
}
