#!/bin/sh
# Checks a saved approval set and the receipts it lists with jq, sha256sum, base64 and openssl only:
# the script of docs/evidence.md §12, word for word (a test keeps them equal). Run it in, or name,
# the directory holding approval.json, keys.json and receipts/<receiptId>.json. Exits 0 only when
# every check passed; the WebAuthn part of each receipt is left to `presence verify-receipt`.
cd "${1:-.}"
set -eu
check() { if [ "$2" = "$3" ]; then echo "OK    $1"; else echo "FAIL  $1: $2 != $3"; exit 1; fi; }
hash_of() { sha256sum "$1" | cut -c1-64; }
# verify_signature BYTES SIGNATURE_RECORD_FILE JQ_PATH_TO_RECORD: Ed25519 by the key of its kid
verify_signature() {
  kid=$(jq -r "$3.kid" "$2")
  jq -r --arg kid "$kid" '.keys[] | select(.kid == $kid) | .publicKeyPem' keys.json > key.pem
  jq -r "$3.signatureB64Url" "$2" | tr '_-' '/+' | sed 's/$/==/' | base64 -d > signature.bin
  if openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in "$1" -sigfile signature.bin > /dev/null
  then echo "OK    signature of $1 by $kid"; else echo "FAIL  signature of $1 by $kid"; exit 1; fi
}
S=.approvalSet.approvalSet
check version "$(jq -r "$S.version" approval.json)" presence.approval-set.v1

# 1. The canonical bytes (RFC 8785; see the note below), their hash, the signature, the key's validity
jq -cjS "$S" approval.json > set.json
check set-hash "$(hash_of set.json)" "$(jq -r .approvalSet.approvalSetHashHex approval.json)"
verify_signature set.json approval.json .approvalSet.signature
check key-valid-at-decidedAt "$(jq -r --arg kid "$(jq -r .approvalSet.signature.kid approval.json)" \
  --arg at "$(jq -r "$S.decidedAt" approval.json)" '.keys[] | select(.kid == $kid)
  | .notBefore <= $at and (.notAfter == null or $at <= .notAfter)' keys.json)" true

# 2. The action hash
jq -cjS "$S.action" approval.json > action.json
check action-hash "$(hash_of action.json)" "$(jq -r "$S.actionHashHex" approval.json)"

# 3. The quorum: enough distinct approvers, each listed, none the initiator
check quorum "$(jq "$S"' as $s | [$s.approvals[].subject] as $who
  | ($who | unique | length) == ($who | length) and ($who | length) >= $s.required
  and all($who[]; . as $x | any($s.approvers[]; . == $x)) and all($who[]; . != $s.initiator)' \
  approval.json)" true

# 4. Each listed receipt: its hash, its signature, and that it is this tenant's, action's and subject's
for id in $(jq -r "$S.approvals[].receiptId" approval.json); do
  entry="$S.approvals[] | select(.receiptId == \"$id\")"
  jq -cjS .receipt "receipts/$id.json" > receipt.json
  check "$id hash" "$(hash_of receipt.json)" "$(jq -r "$entry | .receiptHashHex" approval.json)"
  verify_signature receipt.json "receipts/$id.json" .signature
  check "$id tenant" "$(jq -r .receipt.tenantId "receipts/$id.json")" "$(jq -r "$S.tenantId" approval.json)"
  check "$id action" "$(jq -r .receipt.actionHashHex "receipts/$id.json")" "$(jq -r "$S.actionHashHex" approval.json)"
  check "$id subject" "$(jq -r .receipt.subject "receipts/$id.json")" "$(jq -r "$entry | .subject" approval.json)"
  check "$id decision" "$(jq -r .receipt.decision "receipts/$id.json")" PRESENCE_VERIFIED
done
echo "approval set $(jq -r .approvalSet.approvalSetHashHex approval.json): every check above passed"
