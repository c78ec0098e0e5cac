/** What the domain needs from storage for receipts (a member of StoreTx in ../ports.ts). */

export interface ReceiptRecord {
  id: string;
  tenantId: string;
  challengeId: string;
  credentialRef: string;
  subject: string;
  actionHashHex: string;
  issuedAt: number;
  /** The receipt's RFC 8785 canonical JSON text, exactly the bytes that were hashed and signed. */
  canonicalJson: string;
  hashHex: string;
  kid: string;
  signatureB64Url: string;
  /** The receipt's place in its tenant's log (leaf seq − 1); set when read back, not on insert. */
  seq?: number | undefined;
}

export interface ReceiptRepo {
  /**
   * Stores the receipt and returns its `seq`, taken from the tenant's counter row (which stays
   * locked until commit, so seq order is commit order). Call it inside store.transaction.
   */
  insert(r: ReceiptRecord): Promise<number>;
  get(tenantId: string, id: string): Promise<ReceiptRecord | undefined>;
  getByChallenge(tenantId: string, challengeId: string): Promise<ReceiptRecord | undefined>;
}

export interface SigningKeyRecord {
  kid: string;
  /** Raw 32-byte Ed25519 public key, base64url. */
  publicKeyB64Url: string;
  /** PKCS#8 private key sealed with the master key (see domain/secrets.ts). */
  privateKeySealed: string;
  createdAt: number;
  notBefore: number;
  notAfter: number | null;
  status: 'active' | 'retired';
}

export interface SigningKeyRepo {
  insert(k: SigningKeyRecord): Promise<void>;
  list(): Promise<SigningKeyRecord[]>;
  /**
   * Ends the key's validity at `at` (never later than it was). With `expectedNotAfter`, a
   * compare-and-set: only while its notAfter is still that value; false when it was not.
   */
  retire(kid: string, at: number, expectedNotAfter?: number | null): Promise<boolean>;
}
