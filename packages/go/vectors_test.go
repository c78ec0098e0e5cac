package presenceguard

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"
)

// The shared vectors: conformance/cross-language/ at the repository root, or $PRESENCE_VECTORS.
func vectorsDir() string {
	if dir := os.Getenv("PRESENCE_VECTORS"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "conformance", "cross-language")
}

// load decodes a vector file into `into`, refusing any member `into` has no field for: a new kind
// of vector must fail this runner, never be silently ignored.
func load(t *testing.T, name string, into interface{}) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func keysFile(t *testing.T, name string) []ServiceKey {
	data, err := os.ReadFile(filepath.Join(vectorsDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParseKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

type expectation struct {
	Valid  bool     `json:"valid"`
	Failed []string `json:"failed"`
}

func sameFailures(t *testing.T, report *Report, want expectation) {
	t.Helper()
	got := report.Failed()
	sort.Strings(got)
	sort.Strings(want.Failed)
	if !reflect.DeepEqual(got, want.Failed) || report.Valid != want.Valid {
		t.Errorf("failed %v, want %v; checks %+v", got, want.Failed, report.Checks)
	}
}

func TestCanonicalization(t *testing.T) {
	var data struct {
		Cases  []struct{ Name, InputText, Canonical, Sha256Hex string }
		Errors []struct{ Name, InputText string }
	}
	load(t, "canonicalization.json", &data)
	if len(data.Cases) < 40 {
		t.Fatalf("only %d cases", len(data.Cases))
	}
	for _, c := range data.Cases {
		got, err := Canonicalize(json.RawMessage(c.InputText))
		hash, _ := ActionHash(json.RawMessage(c.InputText))
		if err != nil || string(got) != c.Canonical || hash != c.Sha256Hex {
			t.Errorf("%s: got %s (%v), want %s", c.Name, got, err, c.Canonical)
		}
	}
	if len(data.Errors) < 5 {
		t.Fatalf("only %d error cases", len(data.Errors))
	}
	for _, c := range data.Errors {
		if got, err := Canonicalize(json.RawMessage(c.InputText)); err == nil {
			t.Errorf("%s: no error, got %s", c.Name, got)
		}
		if hash, err := ActionHash(json.RawMessage(c.InputText)); err == nil {
			t.Errorf("%s: no error, hashed to %s", c.Name, hash)
		}
	}
	var actions []struct {
		Name          string
		Action        json.RawMessage
		Canonical     string
		ActionHashHex string
	}
	load(t, "action-hashes.json", &actions)
	for _, c := range actions {
		canonical, _ := Canonicalize(c.Action)
		if string(canonical) != c.Canonical {
			t.Errorf("%s: canonical %s", c.Name, canonical)
		}
		if hash, err := ActionHash(c.Action); err != nil || hash != c.ActionHashHex {
			t.Errorf("%s: %s %v", c.Name, hash, err)
		}
	}
}

// evidenceVector is one case of receipts.json ("signed") or approval-sets.json ("evidence").
type evidenceVector struct {
	Name          string
	Keys          string
	Signed        json.RawMessage
	Evidence      json.RawMessage
	Action        json.RawMessage
	MaxAgeSeconds float64
	Now           int64
	Expect        expectation
}

// actionOptions holds the executor's action when the case gives one.
func (v evidenceVector) actionOptions() Options {
	options := Options{}
	if v.Action != nil {
		options.Action = v.Action
	}
	return options
}

// options holds the executor's action, maximum age and clock when the case gives them.
func (v evidenceVector) options() Options {
	options := v.actionOptions()
	options.MaxAge = time.Duration(v.MaxAgeSeconds * float64(time.Second))
	if v.Now != 0 {
		options.Now = time.Unix(v.Now, 0)
	}
	return options
}

func TestReceipts(t *testing.T) {
	var vectors []evidenceVector
	load(t, "receipts.json", &vectors)
	if len(vectors) < 40 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			if v.Evidence != nil {
				t.Fatal("a receipt vector has an evidence member this runner does not read")
			}
			sameFailures(t, VerifyReceipt(v.Signed, keysFile(t, v.Keys), v.options()), v.Expect)
		})
	}
}

func TestApprovalSets(t *testing.T) {
	var vectors []evidenceVector
	load(t, "approval-sets.json", &vectors)
	if len(vectors) < 15 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			if v.Signed != nil {
				t.Fatal("an approval-set vector has a signed member this runner does not read")
			}
			sameFailures(t, VerifyApprovalSet(v.Evidence, keysFile(t, v.Keys), v.options()), v.Expect)
		})
	}
}

func TestWebhooks(t *testing.T) {
	var vectors []struct {
		Name    string
		Secrets []string
		Headers map[string]string
		RawBody string
		Now     int64
		Expect  struct {
			Valid  bool
			Scheme string
			Error  string
		}
	}
	load(t, "webhooks.json", &vectors)
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			headers := http.Header{}
			for k, value := range v.Headers {
				headers.Set(k, value)
			}
			delivery, err := VerifyWebhookWith(headers, []byte(v.RawBody), WebhookOptions{Secrets: v.Secrets, Now: time.Unix(v.Now, 0)})
			if v.Expect.Valid {
				if err != nil || delivery.Scheme != v.Expect.Scheme {
					t.Errorf("got %v, %+v", err, delivery)
				}
				return
			}
			webhookErr, ok := err.(*WebhookError)
			if !ok || webhookErr.Code != v.Expect.Error {
				t.Errorf("got %v, want %s", err, v.Expect.Error)
			}
		})
	}
}

func TestGoValuesHashLikeTheirJSON(t *testing.T) {
	fromGo, err := ActionHash(map[string]interface{}{"type": "refund", "amount": "0.10", "n": 3, "f": 0.5, "ok": true})
	if err != nil {
		t.Fatal(err)
	}
	fromText, _ := ActionHash(json.RawMessage(`{"f":0.5,"n":3.0,"ok":true,"amount":"0.10","type":"refund"}`))
	type action struct {
		Type   string `json:"type"`
		Amount string `json:"amount"`
	}
	fromStruct, _ := ActionHash(action{"refund", "0.10"})
	fromMap, _ := ActionHash(map[string]string{"amount": "0.10", "type": "refund"})
	if fromGo != fromText || fromStruct != fromMap {
		t.Errorf("%s %s %s %s", fromGo, fromText, fromStruct, fromMap)
	}
}
