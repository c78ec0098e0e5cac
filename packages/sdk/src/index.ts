export * from './action-hash.js';
export * from './challenge.js';
export * from './cose-key.js';
export * from './verify-receipt.js';
export { canonicalJson } from './encoding.js';
