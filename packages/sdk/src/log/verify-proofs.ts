import { timingSafeEqual } from 'node:crypto';
import { HASH_SIZE, emptyRootHash, hashChildren } from './merkle-hash.js';

/** Thrown when a proof does not prove what it claims; the message says which check failed. */
export class ProofError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProofError';
  }
}

function checkHashes(proof: readonly Uint8Array[]): void {
  for (const h of proof) if (h.length !== HASH_SIZE) throw new ProofError('a proof hash is not 32 bytes');
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * RFC 9162 §2.1.3.2: the root that an inclusion proof for `leafHash` at `leafIndex` in a tree of
 * `treeSize` leaves leads to. Indexes are safe integers (a log of 2^53 leaves is out of reach).
 */
export function rootFromInclusionProof(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
): Buffer {
  if (!Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize) || leafIndex < 0)
    throw new ProofError('leaf index and tree size must be non-negative integers');
  if (leafIndex >= treeSize)
    throw new ProofError(`leaf index ${leafIndex} is not below tree size ${treeSize}`);
  if (leafHash.length !== HASH_SIZE) throw new ProofError('the leaf hash is not 32 bytes');
  checkHashes(proof);
  // 1-4: fn = leaf_index, sn = tree_size - 1, r = leaf hash.
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leafHash);
  for (const p of proof) {
    // 5a: if sn is 0, the proof is too long.
    if (sn === 0) throw new ProofError('the inclusion proof has too many hashes');
    if (fn % 2 === 1 || fn === sn) {
      // 5b.i-ii: r = HASH(0x01 || p || r); then shift right until LSB(fn) is set or fn is 0.
      r = hashChildren(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      // 5c: r = HASH(0x01 || r || p).
      r = hashChildren(r, p);
    }
    // 5d: shift fn and sn right by one.
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  // 6: sn must be 0.
  if (sn !== 0) throw new ProofError('the inclusion proof has too few hashes');
  return r;
}

/** Checks an inclusion proof against a root hash; throws ProofError otherwise. */
export function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  rootHash: Uint8Array,
): void {
  const computed = rootFromInclusionProof(leafIndex, treeSize, leafHash, proof);
  if (!sameHash(computed, rootHash)) throw new ProofError('the inclusion proof leads to another root hash');
}

/**
 * RFC 9162 §2.1.4.2: checks that the tree of `size2` leaves with `root2` extends the tree of
 * `size1` leaves with `root1` (every leaf of the first, in the same order). Throws ProofError.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): void {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0)
    throw new ProofError('tree sizes must be non-negative integers');
  if (size2 < size1) throw new ProofError(`tree size ${size2} is smaller than ${size1}: history shrank`);
  checkHashes(proof);
  if (size1 === size2) {
    if (proof.length !== 0) throw new ProofError('a proof between equal sizes must be empty');
    if (!sameHash(root1, root2)) throw new ProofError('two different root hashes for the same tree size');
    return;
  }
  if (size1 === 0) {
    if (proof.length !== 0) throw new ProofError('a proof from the empty tree must be empty');
    if (!sameHash(root1, emptyRootHash())) throw new ProofError('the empty tree has another root hash');
    return;
  }
  if (proof.length === 0) throw new ProofError('the consistency proof is empty');
  // 2: if first is an exact power of 2, prepend first_hash to the proof.
  const path = isPowerOfTwo(size1) ? [Buffer.from(root1), ...proof] : [...proof];
  // 3-4: fn = first - 1, sn = second - 1; shift both right while LSB(fn) is set.
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  // 5: fr = sr = the first value of the path.
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    // 6a: if sn is 0, the proof is too long.
    if (sn === 0) throw new ProofError('the consistency proof has too many hashes');
    if (fn % 2 === 1 || fn === sn) {
      // 6b: fr = HASH(0x01 || c || fr), sr = HASH(0x01 || c || sr); shift until LSB(fn) or fn is 0.
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      // 6c: sr = HASH(0x01 || sr || c).
      sr = hashChildren(sr, c);
    }
    // 6d: shift fn and sn right by one.
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  // 7: fr must equal first_hash, sr second_hash, and sn must be 0.
  if (sn !== 0) throw new ProofError('the consistency proof has too few hashes');
  if (!sameHash(fr, root1))
    throw new ProofError(`the proof does not reproduce the root of tree size ${size1}`);
  if (!sameHash(sr, root2))
    throw new ProofError(`the proof does not reproduce the root of tree size ${size2}`);
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}
