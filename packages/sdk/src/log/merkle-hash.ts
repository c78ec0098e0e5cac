import { createHash } from 'node:crypto';

/**
 * RFC 9162 §2.1.1 hashing with SHA-256: a leaf hash is SHA-256(0x00 || data), an interior node
 * SHA-256(0x01 || left || right), the empty tree SHA-256(""). Presence's leaf data is the 32 raw
 * bytes of a receipt's `receiptHashHex` (docs/api-contract.md#11-the-receipt-log).
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

/**
 * A compact range of the first `size` leaves: the roots of the perfect subtrees RFC 9162 §2.1.1
 * splits them into, largest (leftmost) first, one for each bit set in `size`. It is all a log
 * needs to append and compute its next root: appending k leaves costs about k hashes whatever the
 * size of the tree. Returns the range of the first `size + leafHashes.length` leaves.
 */
export function appendToCompactRange(
  size: number,
  range: readonly Uint8Array[],
  leafHashes: readonly Uint8Array[],
): Buffer[] {
  if (range.length !== setBits(size))
    throw new RangeError(`a compact range of ${size} leaves has ${setBits(size)} hashes`);
  const out: Buffer[] = range.map((h) => Buffer.from(h));
  let n = size;
  for (const leaf of leafHashes) {
    let node: Buffer = Buffer.from(leaf);
    // Each trailing one of n is a perfect subtree of the same size as the one being carried up.
    for (let m = n; m % 2 === 1; m = Math.floor(m / 2)) node = hashChildren(out.pop()!, node);
    out.push(node);
    n += 1;
  }
  return out;
}

/** MTH of the leaves a compact range covers: its subtrees folded from the right. */
export function compactRangeRoot(range: readonly Uint8Array[]): Buffer {
  if (range.length === 0) return emptyRootHash();
  let root: Buffer = Buffer.from(range[range.length - 1]!);
  for (let i = range.length - 2; i >= 0; i -= 1) root = hashChildren(range[i]!, root);
  return root;
}

function setBits(n: number): number {
  let bits = 0;
  for (let m = n; m > 0; m = Math.floor(m / 2)) bits += m % 2;
  return bits;
}

/** MTH(D[n]) of RFC 9162 §2.1.1 over leaf hashes already computed; for tests and small packs. */
export function rootFromLeafHashes(leafHashes: readonly Uint8Array[]): Buffer {
  return compactRangeRoot(appendToCompactRange(0, [], leafHashes));
}
