package presenceguard

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Options are what only the executor knows: its own action and how old evidence may be.
type Options struct {
	// Action is the action about to be executed (nil: not checked). Carry amounts as strings.
	Action interface{}
	// MaxAge refuses a receipt issued (an approval set decided) longer ago; 0: no limit.
	MaxAge time.Duration
	// Now is the time of the max-age check; zero: time.Now().
	Now time.Time
}

// notIJSON is why evidence holding a lone surrogate (invalid UTF-8 in Go) fails its schema check.
const notIJSON = "a string is not well-formed Unicode (a lone surrogate), so it has no RFC 8785 form"

// ChallengeLabel is the domain-separation label of the challenge construction (docs/api-contract.md#2-the-action-is-inside-the-signed-bytes).
const ChallengeLabel = "presence/v1/challenge"

// DeriveChallenge is SHA-256("presence/v1/challenge" || 0x00 || actionHash[32] || nonce[32]).
func DeriveChallenge(actionHash, nonce []byte) []byte {
	h := sha256.New()
	h.Write([]byte(ChallengeLabel))
	h.Write([]byte{0})
	h.Write(actionHash)
	h.Write(nonce)
	return h.Sum(nil)
}

// VerifyReceipt checks a signed receipt {receipt, receiptHashHex, signature} offline (as JSON
// bytes or a decoded value): schema, hash, serviceSignature, serviceKeyValid, challengeBinding,
// clientData, rpIdHash, flags, webauthnSignature, plus action and maxAge when asked. It never
// fails on bad evidence: every problem is a failed check.
func VerifyReceipt(signed interface{}, keys []ServiceKey, options Options) *Report {
	value, err := normalize(signed)
	if err != nil {
		value = nil
	}
	return verifyReceiptValue(value, keys, options)
}

func verifyReceiptValue(value interface{}, keys []ServiceKey, options Options) *Report {
	report := &Report{Kind: "receipt"}
	outer, _ := value.(map[string]interface{})
	if outer == nil {
		report.add("schema", false, "not a signed receipt {receipt, receiptHashHex, signature}")
		return report.finish()
	}
	r, _ := outer["receipt"].(map[string]interface{})
	if problem := schemaProblem(outer["receipt"], receiptV1); problem != "" {
		report.add("schema", false, "not a valid presence.receipt.v1 object: "+problem)
		return report.finish()
	}
	canonical, err := canonicalGeneric(r)
	if err != nil {
		report.add("schema", false, "not a valid presence.receipt.v1 object: "+notIJSON)
		return report.finish()
	}
	report.add("schema", true, "a presence.receipt.v1 object: every field present, well-formed, nothing else")
	sum := sha256.Sum256(canonical)
	report.ID, report.HashHex = r["receiptId"].(string), hex.EncodeToString(sum[:])
	expected, given := outer["receiptHashHex"]
	checkHash(report, expected, given, "receiptHashHex", "receipt")
	checkServiceSignature(report, canonical, r["issuedAt"], outer["signature"], keys)
	checkAssertion(report, r)
	checkExecutor(report, r["actionHashHex"].(string), r["issuedAt"], options)
	return report.finish()
}

func checkHash(report *Report, expected interface{}, given bool, field, what string) {
	switch {
	case !given:
		report.add("hash", true, fmt.Sprintf("SHA-256 of the canonical %s is %s (no expected hash given)", what, report.HashHex))
	case expected == report.HashHex:
		report.add("hash", true, field+" matches the canonical bytes")
	default:
		report.add("hash", false, fmt.Sprintf("expected %v, computed %s", expected, report.HashHex))
	}
}

func checkExecutor(report *Report, actionHashHex string, at interface{}, options Options) {
	if options.Action != nil {
		hash, err := ActionHash(options.Action)
		switch {
		case err != nil:
			report.add("action", false, "the executor's action has no canonical form: "+err.Error())
		case hash == actionHashHex:
			report.add("action", true, "the executor action hashes to actionHashHex")
		default:
			report.add("action", false, fmt.Sprintf("the executor action hashes to %s, the evidence is for %s", hash, actionHashHex))
		}
	}
	if options.MaxAge > 0 {
		now := options.Now
		if now.IsZero() {
			now = time.Now()
		}
		ms, _ := isoMillis(at)
		age := float64(now.UnixMilli()-ms) / 1000
		detail := fmt.Sprintf("%d s old, at most %g s accepted", int64(age), options.MaxAge.Seconds())
		report.add("maxAge", age <= options.MaxAge.Seconds(), detail)
	}
}

func checkAssertion(report *Report, r map[string]interface{}) {
	field := func(name string) []byte { return lenientB64url(r[name].(string)) }
	actionHash, _ := hex.DecodeString(r["actionHashHex"].(string))
	nonce := field("challengeNonceB64Url")
	challenge := ""
	if len(nonce) == 32 {
		challenge = base64.RawURLEncoding.EncodeToString(DeriveChallenge(actionHash, nonce))
	}
	clientBytes := field("clientDataJSONB64Url")
	client, problem := parseClientData(clientBytes)
	if challenge != "" && challenge == r["challengeB64Url"] && client["challenge"] == r["challengeB64Url"] {
		report.add("challengeBinding", true, "challenge = SHA-256(label || 0x00 || actionHash || nonce), and clientDataJSON carries it")
	} else {
		report.add("challengeBinding", false, "the challenge does not commit to this action hash and nonce, or clientDataJSON carries another")
	}
	crossOrigin, _ := client["crossOrigin"].(bool)
	switch {
	case problem != "":
		report.add("clientData", false, problem)
	case client["type"] == "webauthn.get" && client["origin"] == r["origin"] && crossOrigin == (r["crossOrigin"] == true):
		report.add("clientData", true, fmt.Sprintf("webauthn.get from %v", r["origin"]))
	default:
		report.add("clientData", false, "clientDataJSON type, origin or crossOrigin differ from the receipt")
	}
	auth := field("authenticatorDataB64Url")
	rpHash := sha256.Sum256([]byte(r["rpId"].(string)))
	if len(auth) >= 37 && subtle.ConstantTimeCompare(auth[:32], rpHash[:]) == 1 {
		report.add("rpIdHash", true, fmt.Sprintf("authenticatorData is for %v", r["rpId"]))
	} else {
		report.add("rpIdHash", false, "rpIdHash in authenticatorData is not SHA-256(rpId)")
	}
	ok, detail := checkFlags(auth, r)
	report.add("flags", ok, detail)
	clientHash := sha256.Sum256(clientBytes)
	signedData := append(append([]byte(nil), auth...), clientHash[:]...)
	ok, detail = verifyCoseSignature(field("credentialPublicKeyB64Url"), signedData, field("signatureB64Url"))
	report.add("webauthnSignature", ok, detail)
}

func checkFlags(auth []byte, r map[string]interface{}) (bool, string) {
	if len(auth) < 37 {
		return false, fmt.Sprintf("authenticatorData is %d bytes; an assertion needs at least 37", len(auth))
	}
	bits := auth[32]
	up, uv, be, bs, at, ed := bits&0x01 != 0, bits&0x04 != 0, bits&0x08 != 0, bits&0x10 != 0, bits&0x40 != 0, bits&0x80 != 0
	switch {
	case at:
		return false, "the AT flag (attested credential data) must not be set in an assertion"
	case ed && len(auth) == 37:
		return false, "the ED flag is set but no extension data follows"
	case !ed && len(auth) > 37:
		return false, fmt.Sprintf("%d bytes follow signCount without the ED flag", len(auth)-37)
	}
	if ed {
		extensions, err := decodeCBOR(auth[37:])
		if _, isMap := extensions.(map[interface{}]interface{}); err != nil || !isMap {
			return false, "the extension data after the ED flag is not a well-formed CBOR map"
		}
	}
	if !up || !uv {
		return false, "user presence and user verification must both be set"
	}
	if bs && !be {
		return false, "BS is set without BE"
	}
	claimed, _ := r["flags"].(map[string]interface{})
	same := claimed["UP"] == up && claimed["UV"] == uv && claimed["BE"] == be && claimed["BS"] == bs
	count, _ := number(r["signCount"])
	if !same || count != float64(binary.BigEndian.Uint32(auth[33:37])) {
		return false, "flags or signCount differ from authenticatorData"
	}
	return true, "UP and UV set; flags and signCount match authenticatorData"
}

// parseClientData is strict: UTF-8 JSON without a byte order mark, no member twice, an object
// with string type, challenge and origin.
func parseClientData(data []byte) (map[string]interface{}, string) {
	if bytes.HasPrefix(data, []byte{0xef, 0xbb, 0xbf}) {
		return nil, "clientDataJSON starts with a UTF-8 byte order mark"
	}
	value, err := ParseJSON(data)
	if err != nil || !json.Valid(data) {
		return nil, "clientDataJSON is not UTF-8 JSON"
	}
	if name := firstDuplicateMember(data); name != "" {
		return nil, fmt.Sprintf("clientDataJSON has the member %q more than once", name)
	}
	object, ok := value.(map[string]interface{})
	if !ok {
		return nil, "clientDataJSON is not a JSON object"
	}
	for _, k := range []string{"type", "challenge", "origin"} {
		if !isString(object[k]) {
			return nil, "clientDataJSON lacks a string type, challenge or origin"
		}
	}
	if v, present := object["crossOrigin"]; present && !isBool(v) {
		return nil, "clientDataJSON crossOrigin is not a boolean"
	}
	if v, present := object["topOrigin"]; present && !isString(v) {
		return nil, "clientDataJSON topOrigin is not a string"
	}
	return object, ""
}
