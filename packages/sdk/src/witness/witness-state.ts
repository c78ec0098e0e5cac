import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a witness remembers between runs, in its state directory: the last checkpoint it verified
 * and cosigned (`checkpoint`, the signed note as served) and the log keys it trusts (`log-keys`,
 * one base64 raw Ed25519 key per line, pinned on first use unless given). Writes are atomic.
 */
export interface WitnessState {
  checkpoint: string | undefined;
  logKeys: Buffer[];
}

export function readWitnessState(dir: string): WitnessState {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) =>
    existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined;
  const keys = file('log-keys');
  return {
    checkpoint: file('checkpoint'),
    logKeys: (keys ?? '')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => Buffer.from(l.trim(), 'base64')),
  };
}

export function writeWitnessFile(dir: string, name: 'checkpoint' | 'log-keys', text: string): void {
  const tmp = join(dir, `.${name}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, join(dir, name));
}
