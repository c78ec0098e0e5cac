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

// keyServer serves the shared keys.json, or 503 while down; fetches counts the requests.
type keyServer struct {
	body    []byte
	down    bool
	fetches int
}

func (k *keyServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	k.fetches++
	if k.down {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("content-type", "application/json")
	_, _ = w.Write(k.body)
}

func fetchedKeysAt(t *testing.T) (*keyServer, *httptest.Server, *FetchedKeys, *time.Time) {
	keys := &keyServer{body: vector(t, "keys.json")}
	server := httptest.NewServer(keys)
	now := time.Unix(1_700_000_000, 0)
	source := &FetchedKeys{URL: server.URL + "/.well-known/presence/keys.json", CacheFor: time.Minute,
		RefetchAfter: 30 * time.Second, RetryAfter: 5 * time.Second, Now: func() time.Time { return now }}
	return keys, server, source, &now
}

func TestFetchedKeysCachedAndRefetchedForAnUnknownKid(t *testing.T) {
	keys, server, source, now := fetchedKeysAt(t)
	defer server.Close()
	guard := &Guard{Keys: source}
	if _, err := guard.Check(vector(t, "receipt.json"), json.RawMessage(vector(t, "action.json"))); err != nil {
		t.Fatal(err)
	}
	_, _ = source.Keys("")
	_, _ = source.Keys("ed25519-unknown")
	if keys.fetches != 1 {
		t.Fatalf("%d fetches, want 1", keys.fetches)
	}
	*now = now.Add(31 * time.Second)
	_, _ = source.Keys("ed25519-unknown")
	if keys.fetches != 2 {
		t.Fatalf("%d fetches, want 2", keys.fetches)
	}
	*now = now.Add(61 * time.Second) // past CacheFor: fetched again even for a known key id
	if _, err := source.Keys(""); err != nil || keys.fetches != 3 {
		t.Fatalf("%v, %d fetches, want 3", err, keys.fetches)
	}
}

func TestFetchedKeysUnreachableCacheThenRefusalWithBackoff(t *testing.T) {
	keys, server, source, now := fetchedKeysAt(t)
	defer server.Close()
	guard := &Guard{Keys: source}
	receipt, action := vector(t, "receipt.json"), json.RawMessage(vector(t, "action.json"))
	start := *now
	at := func(seconds float64) { *now = start.Add(time.Duration(seconds * float64(time.Second))) }
	if _, err := source.Keys(""); err != nil {
		t.Fatal(err)
	}
	keys.down = true
	at(31) // the re-fetch for an unknown key id fails: the cached keys still serve
	for i := 0; i < 2; i++ {
		if got, err := source.Keys("ed25519-unknown"); err != nil || len(got) == 0 {
			t.Fatalf("want the cached keys, got %v", err)
		}
	}
	if keys.fetches != 2 {
		t.Fatalf("%d fetches, want 2", keys.fetches)
	}
	at(61) // the cache has expired: no keys, the guard refuses naming the check
	for i := 0; i < 2; i++ {
		refusal := refusalOf(t, second(guard.Check(receipt, action)))
		if refusal.Check != "serviceSignature" || !strings.Contains(refusal.Detail, "503") {
			t.Fatalf("refused for %s: %s", refusal.Check, refusal.Detail)
		}
	}
	keys.down = false
	at(65.9)
	_ = refusalOf(t, second(guard.Check(receipt, action)))
	if keys.fetches != 3 {
		t.Fatalf("%d fetches, want 3", keys.fetches)
	}
	at(66)
	if _, err := guard.Check(receipt, action); err != nil || keys.fetches != 4 {
		t.Fatalf("%v, %d fetches, want 4", err, keys.fetches)
	}
}

func TestFetchedKeysNothingListeningIsANamedRefusal(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	guard := &Guard{Keys: &FetchedKeys{URL: url + "/keys.json"}}
	refusal := refusalOf(t, second(guard.Check(vector(t, "receipt.json"), json.RawMessage(vector(t, "action.json")))))
	if refusal.Check != "serviceSignature" || !strings.Contains(refusal.Detail, "could not be read") {
		t.Fatalf("refused for %s: %s", refusal.Check, refusal.Detail)
	}
}
