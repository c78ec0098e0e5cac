package presenceguard

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Bad evidence is a failed check, never a panic: every member of a real receipt and of a real
// approval set replaced by values of every JSON type, and odd base64url lengths.
var oddValues = []interface{}{nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), "", "A", "AAAAA", "not base64!", []interface{}{}, map[string]interface{}{}, map[string]interface{}{"a": json.Number("1")}}

func decoded(t *testing.T, name string) map[string]interface{} {
	value, err := ParseJSON(vector(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return value.(map[string]interface{})
}

func TestRobustReceipt(t *testing.T) {
	keys := keysFile(t, "keys.json")
	for name := range decoded(t, "receipt.json")["receipt"].(map[string]interface{}) {
		for _, value := range oddValues {
			signed := decoded(t, "receipt.json")
			receipt := signed["receipt"].(map[string]interface{})
			if reflect.DeepEqual(receipt[name], value) {
				continue
			}
			receipt[name] = value
			if VerifyReceipt(signed, keys, Options{}).Valid {
				t.Errorf("%s = %v verifies", name, value)
			}
		}
	}
	for _, outer := range []string{"receipt", "signature", "receiptHashHex"} {
		for _, value := range oddValues {
			signed := decoded(t, "receipt.json")
			signed[outer] = value
			if VerifyReceipt(signed, keys, Options{}).Valid {
				t.Errorf("%s = %v verifies", outer, value)
			}
		}
	}
}

func TestRobustApprovalSet(t *testing.T) {
	keys := keysFile(t, "keys.json")
	inner := func(e map[string]interface{}) map[string]interface{} {
		return e["approvalSet"].(map[string]interface{})["approvalSet"].(map[string]interface{})
	}
	for name := range inner(decoded(t, "approval-set.json")) {
		for _, value := range oddValues {
			evidence := decoded(t, "approval-set.json")
			if reflect.DeepEqual(inner(evidence)[name], value) {
				continue
			}
			inner(evidence)[name] = value
			if VerifyApprovalSet(evidence, keys, Options{}).Valid {
				t.Errorf("%s = %v verifies", name, value)
			}
		}
	}
	for _, outer := range []string{"receipts", "approvalSet"} {
		for _, value := range oddValues {
			evidence := decoded(t, "approval-set.json")
			evidence[outer] = value
			if VerifyApprovalSet(evidence, keys, Options{}).Valid {
				t.Errorf("%s = %v verifies", outer, value)
			}
		}
	}
}
