#!/bin/sh
# A deploy step gated on two approvers (docs/approvals.md): ask Presence for an approval of this
# exact deploy, wait up to WAIT_SECONDS for two of APPROVERS to approve it on the service's page,
# save the approval set and its receipts as evidence, check them offline, and only then deploy.
#
# Environment (a CI system sets these):
#   PRESENCE_URL       the Presence service, e.g. https://presence.example.com
#   PRESENCE_API_KEY   a key with scopes approvals:write, approvals:read, receipts:read
#   APPROVERS          the approvers' subjects, space separated (each enrolled once, see README.md)
#   SERVICE, VERSION, ENVIRONMENT   what is deployed where; they make up the approved action
#   DEPLOY_COMMAND     the deploy itself, run with sh -c once the evidence checked out;
#                      it sees APPROVAL_SET_HASH and EVIDENCE_DIR
# Optional: INITIATOR (who asked; never counts), EXPIRES_SECONDS (default 1800), RUN_ID (default: time and process id; makes each
# run's action distinct), WAIT_SECONDS (default 1800), REQUIRED (default 2), EVIDENCE_DIR (default
# ./approval-evidence), PRESENCE_KEYS_FILE (a pinned keys.json; default: fetched from PRESENCE_URL),
# PRESENCE_CLI (how to run the presence CLI; default `presence`).
#
# Exit codes: 0 approved, checked and deployed; 3 rejected; 4 expired or cancelled; 5 no decision
# within WAIT_SECONDS; 6 the evidence did not check out (nothing deployed); 1 other failures;
# 2 bad configuration.
set -eu
set -f # approver names are never globbed
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
: "${PRESENCE_URL:?set PRESENCE_URL}" "${PRESENCE_API_KEY:?set PRESENCE_API_KEY}"
: "${APPROVERS:?set APPROVERS}" "${SERVICE:?set SERVICE}" "${VERSION:?set VERSION}"
: "${ENVIRONMENT:?set ENVIRONMENT}" "${DEPLOY_COMMAND:?set DEPLOY_COMMAND}"
PRESENCE_CLI=${PRESENCE_CLI:-presence}
EVIDENCE_DIR=${EVIDENCE_DIR:-approval-evidence}
RUN_ID=${RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$$}
mkdir -p "$EVIDENCE_DIR/receipts"
EVIDENCE_DIR=$(cd "$EVIDENCE_DIR" && pwd)

# 1. The exact action: every field that defines the effect, and this run's id.
jq -n --arg service "$SERVICE" --arg version "$VERSION" --arg environment "$ENVIRONMENT" \
  --arg runId "$RUN_ID" '{type: "deploy", service: $service, version: $version,
  environment: $environment, runId: $runId}' > "$EVIDENCE_DIR/action.json"

# 2. Ask, and wait. The link and the binding code go to the log (stderr); the approval to a file.
set --
for approver in $APPROVERS; do set -- "$@" --approver "$approver"; done
if [ -n "${INITIATOR:-}" ]; then set -- "$@" --initiator "$INITIATOR"; fi
status=0
$PRESENCE_CLI approvals request --url "$PRESENCE_URL" --action "$EVIDENCE_DIR/action.json" "$@" \
  --required "${REQUIRED:-2}" --expires "${EXPIRES_SECONDS:-1800}" --title "Deploy $SERVICE $VERSION to $ENVIRONMENT" \
  --wait="${WAIT_SECONDS:-1800}" --json > "$EVIDENCE_DIR/approval.ndjson" || status=$?
case $status in
  0) ;;
  3) echo "deploy refused: the approvers rejected it" >&2; exit 3 ;;
  4) echo "deploy refused: the approval expired or was cancelled" >&2; exit 4 ;;
  5) echo "deploy not run: no decision within ${WAIT_SECONDS:-1800} s" >&2; exit 5 ;;
  2) exit 2 ;;
  *) echo "deploy not run: asking for the approval failed (exit $status)" >&2; exit 1 ;;
esac

# 3. The evidence: the approval with its signed set, the receipts it lists, the service keys.
tail -n 1 "$EVIDENCE_DIR/approval.ndjson" > "$EVIDENCE_DIR/approval.json"
if [ -n "${PRESENCE_KEYS_FILE:-}" ]; then cp "$PRESENCE_KEYS_FILE" "$EVIDENCE_DIR/keys.json"
else curl -fsS "$PRESENCE_URL/.well-known/presence/keys.json" -o "$EVIDENCE_DIR/keys.json"; fi
for id in $(jq -r '.approvalSet.approvalSet.approvals[].receiptId' "$EVIDENCE_DIR/approval.json"); do
  curl -fsS -H "Authorization: Bearer $PRESENCE_API_KEY" \
    "$PRESENCE_URL/v1/presence/receipts/$id" -o "$EVIDENCE_DIR/receipts/$id.json"
done

# 4. Check it offline: the set approves exactly this action, and every signature and receipt holds.
refuse() { echo "deploy refused: $1" >&2; exit 6; }
[ "$(jq -cS .approvalSet.approvalSet.action "$EVIDENCE_DIR/approval.json")" = \
  "$(jq -cS . "$EVIDENCE_DIR/action.json")" ] || refuse "the approved action is not this deploy"
sh "$here/verify-approval-set.sh" "$EVIDENCE_DIR" || refuse "the approval set did not verify"
for id in $(jq -r '.approvalSet.approvalSet.approvals[].receiptId' "$EVIDENCE_DIR/approval.json"); do
  $PRESENCE_CLI verify-receipt "$EVIDENCE_DIR/receipts/$id.json" --keys "$EVIDENCE_DIR/keys.json" \
    > "$EVIDENCE_DIR/receipts/$id.check.txt" || refuse "receipt $id did not verify"
done

# 5. Deploy.
APPROVAL_SET_HASH=$(jq -r .approvalSet.approvalSetHashHex "$EVIDENCE_DIR/approval.json")
export APPROVAL_SET_HASH EVIDENCE_DIR
echo "approved: approval set $APPROVAL_SET_HASH (evidence in $EVIDENCE_DIR); deploying" >&2
sh -c "$DEPLOY_COMMAND"
