import type { Clock, Random, Store } from './ports.js';
import type { SecretBox } from './secrets.js';
import type { ReceiptSigner } from './receipts/receipt-signer.js';
import type { PublicKeyCache } from './webauthn/public-key-cache.js';

/** Everything a domain function may use, passed explicitly: `(deps, input)`. */
export interface Deps {
  store: Store;
  clock: Clock;
  random: Random;
  secrets: SecretBox;
  signer: ReceiptSigner;
  publicKeys: PublicKeyCache;
}
