package presenceguard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// VerifyApprovalSet checks an approval set offline (docs/api-contract.md#13-approvals). evidence is one line of an
// export pack's approvals.ndjson, as JSON bytes or a decoded value:
// {"approvalSet": {approvalSet, approvalSetHashHex, signature}, "receipts": [signed receipts]}.
// Checks: schema, hash, serviceSignature, serviceKeyValid, actionHash, receipts,
// requiredApprovals, distinctSubjects, listedApprovers, initiatorExcluded, plus action and maxAge.
func VerifyApprovalSet(evidence interface{}, keys []ServiceKey, options Options) *Report {
	report := &Report{Kind: "approvalSet"}
	value, err := normalize(evidence)
	root, _ := value.(map[string]interface{})
	outer, _ := root["approvalSet"].(map[string]interface{})
	if err != nil || outer == nil {
		report.add("schema", false, "not approval-set evidence {approvalSet, receipts}")
		return report.finish()
	}
	s, _ := outer["approvalSet"].(map[string]interface{})
	if problem := schemaProblem(outer["approvalSet"], approvalSetV1); problem != "" {
		report.add("schema", false, "not a valid presence.approval-set.v1 object: "+problem)
		return report.finish()
	}
	canonical, err := canonicalGeneric(s)
	if err != nil {
		report.add("schema", false, "not a valid presence.approval-set.v1 object: "+notIJSON)
		return report.finish()
	}
	report.add("schema", true, "a presence.approval-set.v1 object: every field present, well-formed, nothing else")
	sum := sha256.Sum256(canonical)
	report.ID, report.HashHex = s["approvalId"].(string), hex.EncodeToString(sum[:])
	expected, given := outer["approvalSetHashHex"]
	checkHash(report, expected, given, "approvalSetHashHex", "approval set")
	checkServiceSignature(report, canonical, s["decidedAt"], outer["signature"], keys)
	actionHashHex := s["actionHashHex"].(string)
	actionBytes, _ := canonicalGeneric(s["action"])
	actionSum := sha256.Sum256(actionBytes)
	if computed := hex.EncodeToString(actionSum[:]); computed == actionHashHex {
		report.add("actionHash", true, "actionHashHex is the SHA-256 of the canonical action")
	} else {
		report.add("actionHash", false, fmt.Sprintf("the action hashes to %s, not to actionHashHex %s", hex.EncodeToString(actionSum[:]), actionHashHex))
	}
	checkExecutor(report, actionHashHex, s["decidedAt"], Options{Action: options.Action})
	receipts, _ := root["receipts"].([]interface{})
	ok, detail := checkListedReceipts(s, receipts, keys)
	report.add("receipts", ok, detail)
	checkApprovers(report, s)
	checkExecutor(report, actionHashHex, s["decidedAt"], Options{MaxAge: options.MaxAge, Now: options.Now})
	return report.finish()
}

func checkListedReceipts(s map[string]interface{}, receipts []interface{}, keys []ServiceKey) (bool, string) {
	entries := s["approvals"].([]interface{})
	for _, item := range entries {
		entry := item.(map[string]interface{})
		id := entry["receiptId"].(string)
		var signed map[string]interface{}
		for _, candidate := range receipts {
			c, _ := candidate.(map[string]interface{})
			if inner, ok := c["receipt"].(map[string]interface{}); ok && inner["receiptId"] == id {
				signed = c
				break
			}
		}
		if signed == nil {
			return false, fmt.Sprintf("the receipt %s is not in the evidence", id)
		}
		report := verifyReceiptValue(signed, keys, Options{})
		if !report.Valid {
			return false, fmt.Sprintf("the receipt %s is not valid (%s)", id, strings.Join(report.Failed(), ", "))
		}
		receipt := signed["receipt"].(map[string]interface{})
		switch {
		case report.HashHex != entry["receiptHashHex"]:
			return false, fmt.Sprintf("the receipt %s does not hash to the listed receiptHashHex", id)
		case receipt["subject"] != entry["subject"]:
			return false, fmt.Sprintf("the receipt %s is for %v, listed for %v", id, receipt["subject"], entry["subject"])
		case receipt["actionHashHex"] != s["actionHashHex"]:
			return false, fmt.Sprintf("the receipt %s is for another action", id)
		}
	}
	return true, fmt.Sprintf("every listed receipt is valid, for this action and its listed subject (%d)", len(entries))
}

func checkApprovers(report *Report, s map[string]interface{}) {
	approvers := map[string]bool{}
	for _, a := range s["approvers"].([]interface{}) {
		approvers[a.(string)] = true
	}
	seen := map[string]bool{}
	duplicate, unlisted := "", ""
	initiator, hasInitiator := s["initiator"].(string)
	initiatorCounted := hasInitiator && approvers[initiator]
	entries := s["approvals"].([]interface{})
	for _, item := range entries {
		subject := item.(map[string]interface{})["subject"].(string)
		if seen[subject] && duplicate == "" {
			duplicate = subject
		}
		seen[subject] = true
		if !approvers[subject] && unlisted == "" {
			unlisted = subject
		}
		if hasInitiator && subject == initiator {
			initiatorCounted = true
		}
	}
	required, _ := number(s["required"])
	report.add("requiredApprovals", float64(len(entries)) >= required, fmt.Sprintf("%d approvals, %g required", len(entries), required))
	if duplicate == "" {
		report.add("distinctSubjects", true, "each approval is from another subject")
	} else {
		report.add("distinctSubjects", false, duplicate+" approved more than once")
	}
	if unlisted == "" {
		report.add("listedApprovers", true, "every approval is from a listed approver")
	} else {
		report.add("listedApprovers", false, unlisted+" is not among the approvers")
	}
	if initiatorCounted {
		report.add("initiatorExcluded", false, "the initiator "+initiator+" is listed or counted as an approver")
	} else {
		report.add("initiatorExcluded", true, "the initiator neither approves nor is counted")
	}
}
