import { createHash } from 'node:crypto';

/**
 * RFC 9162 §2.1.1 hashing with SHA-256: a leaf hash is SHA-256(0x00 || data), an interior node
 * SHA-256(0x01 || left || right), the empty tree SHA-256(""). Presence's leaf data is the 32 raw
 * bytes of a receipt's `receiptHashHex` (contract §10).
 */
export const HASH_SIZE = 32;

export function hashLeaf(data: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(0x00)).update(data).digest();
}

export function hashChildren(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(0x01)).update(left).update(right).digest();
}

export function emptyRootHash(): Buffer {
  return createHash('sha256').digest();
}

/** The leaf hash of a receipt: its 64-hex `receiptHashHex` as 32 raw bytes, leaf-hashed. */
export function receiptLeafHash(receiptHashHex: string): Buffer {
  if (!/^[0-9a-f]{64}$/.test(receiptHashHex)) throw new RangeError('receiptHashHex must be 64 lowercase hex');
  return hashLeaf(Buffer.from(receiptHashHex, 'hex'));
}

/** MTH(D[n]) of RFC 9162 §2.1.1 over leaf hashes already computed, in O(n) memory; for tests and small packs. */
export function rootFromLeafHashes(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return emptyRootHash();
  // A compact range: the perfect subtrees of the prefix seen so far, largest first.
  const stack: { size: number; hash: Buffer }[] = [];
  for (const leaf of leafHashes) {
    let node: { size: number; hash: Buffer } = { size: 1, hash: Buffer.from(leaf) };
    while (stack.length > 0 && stack[stack.length - 1]!.size === node.size) {
      const left = stack.pop()!;
      node = { size: left.size * 2, hash: hashChildren(left.hash, node.hash) };
    }
    stack.push(node);
  }
  let root: Buffer = stack.pop()!.hash;
  while (stack.length > 0) root = hashChildren(stack.pop()!.hash, root);
  return root;
}
