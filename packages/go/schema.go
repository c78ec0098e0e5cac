package presenceguard

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"unicode/utf16"
)

// The frozen v1 schemas (receipt v1, approval set v1) as plain rules: every member present and
// well-formed, nothing else; the same rules as the TypeBox schemas of the TypeScript contract.

type rule func(interface{}) bool

type member struct {
	name     string
	optional bool
	check    rule
}

var (
	hashHex   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	base64url = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)
)

func idOf(prefix string) rule {
	pattern := regexp.MustCompile(`^` + prefix + `_[0-9A-HJKMNP-TV-Z]{26}$`)
	return func(v interface{}) bool { s, ok := v.(string); return ok && pattern.MatchString(s) }
}

func isString(v interface{}) bool { _, ok := v.(string); return ok }
func isBool(v interface{}) bool   { _, ok := v.(bool); return ok }
func isHash(v interface{}) bool   { s, ok := v.(string); return ok && hashHex.MatchString(s) }
func isTime(v interface{}) bool   { _, ok := isoMillis(v); return ok }
func isB64url(v interface{}) bool {
	s, ok := v.(string)
	return ok && len(utf16.Encode([]rune(s))) <= 65536 && base64url.MatchString(s)
}
func literal(want string) rule { return func(v interface{}) bool { return v == want } }
func nullable(r rule) rule     { return func(v interface{}) bool { return v == nil || r(v) } }

func number(v interface{}) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

func integer(min, max float64) rule {
	return func(v interface{}) bool {
		f, ok := number(v)
		return ok && f == math.Trunc(f) && f >= min && f <= max
	}
}

func subject(v interface{}) bool {
	s, ok := v.(string)
	n := len(utf16.Encode([]rune(s)))
	return ok && n >= 1 && n <= 256
}

func flagsRule(v interface{}) bool {
	m, ok := v.(map[string]interface{})
	if !ok {
		return false
	}
	for _, k := range []string{"UP", "UV", "BE", "BS"} {
		if !isBool(m[k]) {
			return false
		}
	}
	return true
}

var receiptV1 = []member{
	{"version", false, literal("presence.receipt.v1")}, {"receiptId", false, idOf("rct")},
	{"tenantId", false, idOf("ten")}, {"challengeId", false, idOf("chl")},
	{"decision", false, literal("PRESENCE_VERIFIED")}, {"actionHashHex", false, isHash},
	{"purpose", false, nullable(isString)}, {"challengeNonceB64Url", false, isB64url},
	{"challengeB64Url", false, isB64url}, {"challengeCreatedAt", false, isTime},
	{"challengeExpiresAt", false, isTime}, {"verifiedAt", false, isTime}, {"issuedAt", false, isTime},
	{"rpId", false, isString}, {"origin", false, isString}, {"topOrigin", false, nullable(isString)},
	{"crossOrigin", false, isBool}, {"flags", false, flagsRule}, {"signCount", false, integer(0, math.Inf(1))},
	{"credentialId", false, isB64url}, {"credentialRef", false, idOf("cred")},
	{"credentialPublicKeyB64Url", false, isB64url}, {"credentialAlg", false, integer(math.Inf(-1), math.Inf(1))},
	{"subject", false, isString}, {"authenticatorDataB64Url", false, isB64url},
	{"clientDataJSONB64Url", false, isB64url}, {"signatureB64Url", false, isB64url},
	{"userHandleB64Url", false, nullable(isB64url)}, {"policyId", false, idOf("pol")},
	{"policyVersion", false, integer(1, math.Inf(1))}, {"policyHashHex", false, isHash},
}

var approvalEntry = []member{{"subject", false, subject}, {"receiptId", false, idOf("rct")}, {"receiptHashHex", false, isHash}}

func listOf(min, max int, r rule) rule {
	return func(v interface{}) bool {
		items, ok := v.([]interface{})
		if !ok || len(items) < min || len(items) > max {
			return false
		}
		for _, item := range items {
			if !r(item) {
				return false
			}
		}
		return true
	}
}

var approvalSetV1 = []member{
	{"version", false, literal("presence.approval-set.v1")}, {"approvalId", false, idOf("apr")},
	{"tenantId", false, idOf("ten")}, {"actionHashHex", false, isHash},
	{"action", false, func(v interface{}) bool { _, ok := v.(map[string]interface{}); return ok }},
	{"title", false, nullable(func(v interface{}) bool { s, ok := v.(string); return ok && len(utf16.Encode([]rune(s))) <= 120 })},
	{"required", false, integer(1, 20)}, {"approvers", false, listOf(1, 20, subject)},
	{"initiator", true, subject},
	{"approvals", false, listOf(1, 20, func(v interface{}) bool { return schemaProblem(v, approvalEntry) == "" })},
	{"createdAt", false, isTime}, {"decidedAt", false, isTime},
}

// schemaProblem is "" when value fits the members exactly, else the first problem.
func schemaProblem(value interface{}, members []member) string {
	object, ok := value.(map[string]interface{})
	if !ok {
		return "not a JSON object"
	}
	known := map[string]bool{}
	for _, m := range members {
		known[m.name] = true
		v, present := object[m.name]
		if !present {
			if m.optional {
				continue
			}
			return fmt.Sprintf("/%s is missing", m.name)
		}
		if !m.check(v) {
			return fmt.Sprintf("/%s is not well-formed", m.name)
		}
	}
	for name := range object {
		if !known[name] {
			return fmt.Sprintf("/%s is not a member of this version", name)
		}
	}
	return ""
}
