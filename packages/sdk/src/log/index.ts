/** The receipt log for auditors and witnesses: RFC 9162 proofs, C2SP checkpoints, notes, cosignatures. */
export * from './merkle-hash.js';
export * from './verify-proofs.js';
export * from './checkpoint.js';
export * from './signed-note.js';
export * from './cosignature.js';
export * from './open-checkpoint.js';
