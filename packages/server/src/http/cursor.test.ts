import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from './cursor.js';

describe('CursorCodec across a master-key rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const issued = new CursorCodec(oldKey).encode('scope', { afterSeq: 7 });

  it('decodes cursors of the previous key while it is configured, and only then', () => {
    expect(new CursorCodec(newKey, oldKey).decode('scope', issued)).toEqual({ afterSeq: 7 });
    expect(() => new CursorCodec(newKey).decode('scope', issued)).toThrow(/not issued for this query/);
  });

  it('still refuses another scope and edited cursors', () => {
    const codec = new CursorCodec(newKey, oldKey);
    expect(() => codec.decode('other', issued)).toThrow(/not issued/);
    const [body, mac] = issued.split('.');
    expect(() => codec.decode('scope', `${body}x.${mac}`)).toThrow(/not issued/);
    expect(() => codec.decode('scope', body!)).toThrow(/not issued/);
  });
});
