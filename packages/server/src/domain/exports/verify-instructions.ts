/**
 * VERIFY.txt: how an auditor checks a pack with unzip, sha256sum and openssl alone. Every line
 * that starts with "  $ " is a command; test/export-pack-tools.test.ts runs them all, as written,
 * against a real pack. docs/evidence.md has the full format.
 */
export const VERIFY_INSTRUCTIONS = `Presence export pack: how to check it without trusting the service

This zip holds one tenant's signed presence receipts for one time range [from, to) of issuedAt:

  VERIFY.txt            this file
  receipts.ndjson       one receipt per line, in the order they were committed (seq)
  policy.snapshot.json  every policy version the receipts name
  trust.snapshot.json   the credentials the receipts use, with their enrollment evidence,
                        and the service keys (for reference only: they are not a trust root)
  log/checkpoint.txt    the tenant's receipt-log checkpoint (C2SP signed note) with witness cosignatures
  log/inclusion.ndjson  for every receipt, its leaf index (seq - 1) and RFC 9162 inclusion proof
  log/consistency.json  an RFC 9162 consistency proof to the checkpoint (from logSince when asked)
  manifest.json         tenant, range, filters, counts, and the SHA-256 and size of each file above
  manifest.sig.json     the service's Ed25519 signature over manifest.json, byte for byte

Run the commands below in an empty directory holding pack.zip. Lines starting with "$" are
commands; stop at the first one that fails.

1. Unpack it. The listing must show exactly the nine files above.
  $ unzip -q -o pack.zip
  $ unzip -Z1 pack.zip | LC_ALL=C sort | tr '\\n' ' ' | grep -qx 'VERIFY.txt log/checkpoint.txt log/consistency.json log/inclusion.ndjson manifest.json manifest.sig.json policy.snapshot.json receipts.ndjson trust.snapshot.json '

2. Obtain the service public keys from a source you trust, never from this pack: save
   https://<service>/.well-known/presence/keys.json (as served, one line) as keys.json, or use
   your pinned copies. Old keys stay published after a rotation, so old packs keep verifying.
   These commands take the key whose "kid" signed manifest.sig.json out of keys.json as key.pem
   (with a pinned copy, save that PEM as key.pem instead), and the receipt-log key ("use":"log")
   as logkey.pem (an Ed25519 SubjectPublicKeyInfo is a fixed 12-byte prefix and the raw 32-byte key):
  $ sed -n 's/.*"kid":"\\([^"]*\\)".*/\\1/p' manifest.sig.json > kid.txt
  $ grep -o "{[^{}]*\\"kid\\":\\"$(cat kid.txt)\\"[^{}]*}" keys.json | sed -n 's/.*"publicKeyPem":"\\([^"]*\\)".*/\\1/p' | sed 's/\\\\n/\\n/g' > key.pem
  $ openssl pkey -pubin -in key.pem -noout
  $ grep -o '{[^}]*"use":"log"[^}]*}' keys.json | head -1 | sed -n 's/.*"publicKeyB64Url":"\\([A-Za-z0-9_-]*\\)".*/\\1=/p' | tr '_-' '/+' | base64 -d | cat <(printf '\\x30\\x2a\\x30\\x05\\x06\\x03\\x2b\\x65\\x70\\x03\\x21\\x00') - | openssl pkey -pubin -inform DER -out logkey.pem

3. Check the manifest signature (OpenSSL 3). The signature is base64url without padding.
  $ sed -n 's/.*"signatureB64Url":"\\([A-Za-z0-9_-]*\\)".*/\\1==/p' manifest.sig.json | tr '_-' '/+' | base64 -d > manifest.sig
  $ openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in manifest.json -sigfile manifest.sig

4. Check every file's SHA-256 and size against the signed manifest.
  $ grep -o '"name":"[^"]*","sha256":"[0-9a-f]*"' manifest.json | sed 's/"name":"\\([^"]*\\)","sha256":"\\([0-9a-f]*\\)"/\\2  \\1/' > SHA256SUMS
  $ test "$(wc -l < SHA256SUMS)" -eq 7 && sha256sum -c SHA256SUMS
  $ grep -o '"bytes":[0-9]*,"name":"[^"]*"' manifest.json | sed 's/"bytes":\\([0-9]*\\),"name":"\\([^"]*\\)"/\\1 \\2/' | while read -r size name; do test "$(wc -c < "$name")" -eq "$size" || exit 1; done

5. Check one receipt: its hash and the service signature over it (here line 1; all below).
   The "receipt" member of each line is stored in RFC 8785 canonical form, so its bytes are
   exactly what was hashed and signed.
  $ sed -n '1s/.*,"receipt":\\({.*}\\),"receiptHashHex".*/\\1/p' receipts.ndjson | tr -d '\\n' > receipt.json
  $ test "$(sha256sum < receipt.json | cut -d' ' -f1)" = "$(sed -n '1s/.*"receiptHashHex":"\\([0-9a-f]*\\)".*/\\1/p' receipts.ndjson)"
  $ sed -n '1s/.*"signatureB64Url":"\\([A-Za-z0-9_-]*\\)"}}$/\\1==/p' receipts.ndjson | tr '_-' '/+' | base64 -d > receipt.sig
  $ openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in receipt.json -sigfile receipt.sig

   Every line, each with the key its own signature names (a receipt signed before a key rotation
   names the older key), taken from keys.json; the loop stops at the first failure:
  $ while IFS= read -r line; do printf '%s' "$line" | sed 's/.*,"receipt":\\({.*}\\),"receiptHashHex".*/\\1/' > r.json; test "$(sha256sum < r.json | cut -d' ' -f1)" = "$(printf '%s' "$line" | sed 's/.*"receiptHashHex":"\\([0-9a-f]*\\)".*/\\1/')" || exit 1; kid=$(printf '%s' "$line" | sed 's/.*"kid":"\\([^"]*\\)","signatureB64Url":"[A-Za-z0-9_-]*"}}$/\\1/'); grep -o "{[^{}]*\\"kid\\":\\"$kid\\"[^{}]*}" keys.json | sed -n 's/.*"publicKeyPem":"\\([^"]*\\)".*/\\1/p' | sed 's/\\\\n/\\n/g' > r.pem; printf '%s' "$line" | sed 's/.*"signatureB64Url":"\\([A-Za-z0-9_-]*\\)"}}$/\\1==/' | tr '_-' '/+' | base64 -d > r.sig; openssl pkeyutl -verify -pubin -inkey r.pem -rawin -in r.json -sigfile r.sig > /dev/null || exit 1; done < receipts.ndjson

6. Check the log checkpoint's signature: the text up to the blank line, signed by the log key
   under the checkpoint's first line (its origin) as key name; the line's base64 value is a
   4-byte key id followed by the 64-byte Ed25519 signature. Other lines are witness cosignatures.
  $ sed '/^$/,$d' log/checkpoint.txt > checkpoint.body
  $ grep -F "— $(head -1 log/checkpoint.txt) " log/checkpoint.txt | head -1 | cut -d' ' -f3 | base64 -d | tail -c 64 > checkpoint.sig
  $ openssl pkeyutl -verify -pubin -inkey logkey.pem -rawin -in checkpoint.body -sigfile checkpoint.sig

7. What these tools cannot check by hand: that each authenticator signature covers its action,
   and that each receipt is a leaf of the checkpoint (leaf hash SHA-256(0x00 || receipt hash),
   RFC 9162 inclusion proofs in log/inclusion.ndjson; any RFC 9162 implementation can check them).
   Recompute challenge = SHA-256("presence/v1/challenge" || 0x00 || actionHash || nonce), compare
   it with clientDataJSON.challenge, and verify the WebAuthn signature over
   authenticatorData || SHA-256(clientDataJSON) with the credential key in the receipt. The
   offline verifier does all of this and every check above:
       npx presence-verify pack.zip --keys keys.json      (or --key key.pem --log-key logkey.pem)
   With a checkpoint you saved earlier, add --since checkpoint.txt (export with logSince=<its size>).
   docs/evidence.md describes every byte.
`;
