import { HASH_SIZE } from './merkle-hash.js';

/**
 * C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint) bodies: the origin line, the tree size
 * in decimal, the base64 root hash, then optional extension lines, each ending in a newline.
 */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Buffer;
  extensions: string[];
}

export function formatCheckpointBody(origin: string, treeSize: number, rootHash: Uint8Array): string {
  return `${origin}\n${treeSize}\n${Buffer.from(rootHash).toString('base64')}\n`;
}

export function parseCheckpointBody(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new Error('a checkpoint body ends with a newline');
  const [origin, size, root, ...extensions] = text.slice(0, -1).split('\n');
  if (!origin || origin.trim() !== origin) throw new Error('the checkpoint has no origin line');
  if (size === undefined || !/^(0|[1-9][0-9]*)$/.test(size))
    throw new Error('the checkpoint tree size is not a decimal number');
  const treeSize = Number(size);
  if (!Number.isSafeInteger(treeSize)) throw new Error('the checkpoint tree size is too large');
  const rootHash = Buffer.from(root ?? '', 'base64');
  if (rootHash.length !== HASH_SIZE || rootHash.toString('base64') !== root)
    throw new Error('the checkpoint root hash is not 32 bytes of base64');
  if (extensions.some((e) => e === '')) throw new Error('the checkpoint has an empty extension line');
  return { origin, treeSize, rootHash, extensions };
}
