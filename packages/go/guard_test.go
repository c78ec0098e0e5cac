package presenceguard

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func vector(t testing.TB, name string) []byte {
	data, err := os.ReadFile(filepath.Join(vectorsDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func refusalOf(t *testing.T, err error) *Refusal {
	var refusal *Refusal
	if !errors.As(err, &refusal) {
		t.Fatalf("want a refusal, got %v", err)
	}
	return refusal
}

func TestGuardRefusesReuseAndOtherActions(t *testing.T) {
	guard := &Guard{Keys: PinnedKeys(keysFile(t, "keys.json"))}
	receipt, action := vector(t, "receipt.json"), json.RawMessage(vector(t, "action.json"))
	if refusal := refusalOf(t, second(guard.Check(receipt, json.RawMessage(vector(t, "other-action.json"))))); refusal.Check != "action" {
		t.Fatalf("refused for %s", refusal.Check)
	}
	if _, err := guard.Check(receipt, action); err != nil {
		t.Fatal(err)
	}
	if refusal := refusalOf(t, second(guard.Check(receipt, action))); refusal.Check != "singleUse" {
		t.Fatalf("refused for %s", refusal.Check)
	}
	set := vector(t, "approval-set.json")
	if report, err := guard.Check(set, action); err != nil || report.Kind != "approvalSet" {
		t.Fatal(err)
	}
	if refusal := refusalOf(t, second(guard.Check(set, action))); refusal.Check != "singleUse" {
		t.Fatalf("refused for %s", refusal.Check)
	}
	var signed struct{ Receipt struct{ IssuedAt time.Time } }
	_ = json.Unmarshal(receipt, &signed)
	late := func() time.Time { return signed.Receipt.IssuedAt.Add(61 * time.Second) }
	old := &Guard{Keys: PinnedKeys(keysFile(t, "keys.json")), MaxAge: time.Minute, Now: late}
	if refusal := refusalOf(t, second(old.Check(receipt, action))); refusal.Check != "maxAge" {
		t.Fatalf("refused for %s", refusal.Check)
	}
	old.Now = func() time.Time { return signed.Receipt.IssuedAt.Add(59 * time.Second) }
	if _, err := old.Check(receipt, action); err != nil {
		t.Fatal(err)
	}
}

func second(_ *Report, err error) error { return err }

func TestMiddleware(t *testing.T) {
	guard := &Guard{Keys: PinnedKeys(keysFile(t, "keys.json"))}
	handler := guard.Middleware(func(r *http.Request, body []byte) (interface{}, error) {
		var action map[string]interface{}
		err := json.Unmarshal(body, &action)
		delete(action, EvidenceBodyField)
		return action, err
	})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write([]byte("executed " + ReportFrom(r).ID + " " + string(body[:1])))
	}))
	server := httptest.NewServer(handler)
	defer server.Close()
	post := func(body string, evidence []byte) (int, string) {
		request, _ := http.NewRequest("POST", server.URL, strings.NewReader(body))
		if evidence != nil {
			request.Header.Set(EvidenceHeader, base64.RawURLEncoding.EncodeToString(evidence))
		}
		response, err := http.DefaultClient.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		defer response.Body.Close()
		out, _ := io.ReadAll(response.Body)
		return response.StatusCode, string(out)
	}
	action := string(vector(t, "action.json"))
	if status, body := post(action, vector(t, "receipt.json")); status != 200 || !strings.HasPrefix(body, "executed rct_") {
		t.Fatalf("%d %s", status, body)
	}
	status, body := post(action, vector(t, "receipt.json"))
	if status != 403 || !strings.Contains(body, `"check":"singleUse"`) {
		t.Fatalf("%d %s", status, body)
	}
	withSet := strings.TrimSuffix(strings.TrimSpace(action), "}") + `,"presenceEvidence":` + string(vector(t, "approval-set.json")) + "}"
	if status, body := post(withSet, nil); status != 200 || !strings.HasPrefix(body, "executed apr_") {
		t.Fatalf("%d %s", status, body)
	}
	if status, body := post(action, nil); status != 403 || !strings.Contains(body, `"check":"evidence"`) {
		t.Fatalf("%d %s", status, body)
	}
	// One byte over the cap: 413 problem+json, not a body cut short and handed on.
	padded := strings.TrimSuffix(strings.TrimSpace(action), "}") + `,"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	status, body = post(padded, vector(t, "receipt.json"))
	if status != 413 || !strings.Contains(body, `"code":"payload_too_large"`) {
		t.Fatalf("%d %s", status, body)
	}
}
