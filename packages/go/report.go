package presenceguard

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Check is the verdict of one named rule.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Report lists every check in order; Valid only when all passed.
type Report struct {
	Valid   bool    `json:"valid"`
	Kind    string  `json:"kind"` // "receipt" or "approvalSet"
	ID      string  `json:"id"`
	HashHex string  `json:"hashHex"`
	Checks  []Check `json:"checks"`
}

// Failed names the checks that failed.
func (r *Report) Failed() []string {
	out := []string{}
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

func (r *Report) add(name string, ok bool, detail string) {
	r.Checks = append(r.Checks, Check{name, ok, detail})
}

func (r *Report) finish() *Report {
	r.Valid = len(r.Failed()) == 0
	return r
}

// ServiceKey is one entry of /.well-known/presence/keys.json.
type ServiceKey struct {
	Kid             string  `json:"kid"`
	Alg             string  `json:"alg"`
	PublicKeyB64Url string  `json:"publicKeyB64Url"`
	NotBefore       string  `json:"notBefore"`
	NotAfter        *string `json:"notAfter"`
	Status          string  `json:"status"`
	Use             string  `json:"use,omitempty"`
}

// ParseKeys reads a keys.json document ({"keys": [...]}).
func ParseKeys(data []byte) ([]ServiceKey, error) {
	var document struct {
		Keys []ServiceKey `json:"keys"`
	}
	if err := json.Unmarshal(data, &document); err != nil {
		return nil, err
	}
	if document.Keys == nil {
		return nil, errors.New(`not a keys.json document: expected {"keys": [...]}`)
	}
	return document.Keys, nil
}

var isoTime = regexp.MustCompile(`^(?i)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)

// isoMillis is JavaScript's Date.parse for RFC 3339 times: milliseconds since the epoch.
func isoMillis(value interface{}) (int64, bool) {
	text, ok := value.(string)
	if !ok || !isoTime.MatchString(text) {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(text))
	if err != nil {
		return 0, false
	}
	return t.Unix()*1000 + int64(t.Nanosecond()/1e6), true
}

func b64url(text string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(text, "="))
}

// lenientB64url decodes like Node's Buffer.from(text, "base64url"): unused trailing bits ignored.
func lenientB64url(text string) []byte {
	text = strings.TrimRight(text, "=")
	if len(text)%4 == 1 {
		text = text[:len(text)-1]
	}
	out, _ := base64.RawURLEncoding.DecodeString(text)
	return out
}

func checkServiceSignature(r *Report, message []byte, datedAt interface{}, sig interface{}, keys []ServiceKey) {
	record, _ := sig.(map[string]interface{})
	kid, kidOK := record["kid"].(string)
	signature, sigOK := record["signatureB64Url"].(string)
	if record == nil || record["alg"] != "Ed25519" || !kidOK || !sigOK {
		r.add("serviceSignature", false, "no Ed25519 signature record {alg, kid, signatureB64Url} was given")
		return
	}
	var key *ServiceKey
	for i := range keys {
		if keys[i].Kid == kid && keys[i].Use != "log" {
			key = &keys[i]
		}
	}
	if key == nil {
		r.add("serviceSignature", false, fmt.Sprintf("key %s is not among the trusted service keys", kid))
		return
	}
	public, err1 := b64url(key.PublicKeyB64Url)
	sigBytes := lenientB64url(signature)
	if err1 == nil && len(public) == ed25519.PublicKeySize && ed25519.Verify(public, message, sigBytes) {
		r.add("serviceSignature", true, "signed by "+kid)
	} else {
		r.add("serviceSignature", false, "the signature does not verify with "+kid)
	}
	at, okAt := isoMillis(datedAt)
	notBefore, okBefore := isoMillis(key.NotBefore)
	inWindow := okAt && okBefore && at >= notBefore
	if key.NotAfter != nil {
		notAfter, okAfter := isoMillis(*key.NotAfter)
		inWindow = inWindow && okAfter && at <= notAfter
	}
	if inWindow {
		r.add("serviceKeyValid", true, "dated within "+kid+"'s validity")
	} else {
		r.add("serviceKeyValid", false, "the date is outside "+kid+"'s validity")
	}
}
