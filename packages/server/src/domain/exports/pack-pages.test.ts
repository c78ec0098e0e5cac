import { describe, expect, it } from 'vitest';
import { PackChunks } from './pack-pages.js';

const CHUNK = 64 * 1024;

function chunked(pieces: string[]): Buffer[] {
  const out = new PackChunks();
  for (const piece of pieces) out.write(piece);
  return out.finish();
}

describe('PackChunks', () => {
  it('keeps every byte, in order, in chunks that never split a piece', () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i += 1) {
      // ASCII, 2-, 3- and 4-byte characters, and lengths that land on and around a chunk's end.
      const body =
        i % 7 === 0 ? 'é'.repeat(i % 50) : i % 11 === 0 ? '€🙂'.repeat(i % 30) : 'x'.repeat(i % 97);
      lines.push(`{"n":${i},"s":"${body}"}\n`);
    }
    const chunks = chunked(lines);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(lines.join(''));
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(CHUNK);
      expect(chunk.at(-1)).toBe(0x0a);
    }
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('gives a piece longer than a chunk a Buffer of its own', () => {
    const long = `${'€'.repeat(CHUNK)}\n`;
    const chunks = chunked(['a\n', long, 'b\n', '']);
    expect(chunks.map((c) => c.toString('utf8'))).toEqual(['a\n', long, 'b\n']);
  });

  it('has no chunks for no pieces', () => {
    expect(chunked([])).toEqual([]);
  });
});
