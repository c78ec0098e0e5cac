package presenceguard

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// SeenStore remembers accepted evidence. Claim is atomic: of two concurrent claims of one key,
// exactly one gets true.
type SeenStore interface {
	Claim(key string, ttl time.Duration) (bool, error)
}

// MemorySeenStore is in-process memory: right for one executor process.
type MemorySeenStore struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// Claim is true when key was not seen within its ttl.
func (m *MemorySeenStore) Claim(key string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.until == nil {
		m.until = map[string]time.Time{}
	}
	if len(m.until) > 10000 {
		for k, t := range m.until {
			if !t.After(now) {
				delete(m.until, k)
			}
		}
	}
	if t, seen := m.until[key]; seen && t.After(now) {
		return false, nil
	}
	m.until[key] = now.Add(ttl)
	return true, nil
}

// Refusal names the first failed check: "evidence" (none to read), a verifier check, "action",
// "maxAge" or "singleUse".
type Refusal struct {
	Check  string
	Detail string
	Report *Report
}

func (r *Refusal) Error() string { return r.Check + ": " + r.Detail }

// Problem is the 403 application/problem+json body.
func (r *Refusal) Problem() map[string]interface{} {
	body := map[string]interface{}{
		"type": "https://presence.dev/problems/evidence_refused", "title": "Evidence refused",
		"status": 403, "code": "evidence_refused", "check": r.Check, "detail": r.Detail,
	}
	if r.Report != nil {
		checks := map[string]interface{}{}
		for _, c := range r.Report.Checks {
			checks[c.Name] = map[string]interface{}{"ok": c.OK, "detail": c.Detail}
		}
		body["checks"] = checks
	}
	return body
}

// Guard checks evidence before the executor executes: offline against Keys, against the
// executor's own action, MaxAge (0: none), and single use through Store (memory by default).
type Guard struct {
	Keys    KeySource
	Store   SeenStore
	MaxAge  time.Duration
	SeenTTL time.Duration // default MaxAge + 1 minute, or 30 days
	// Now is the clock of the max-age check; nil: time.Now.
	Now func() time.Time

	once sync.Once
}

// Check returns the report when every check passes and the evidence is new.
func (g *Guard) Check(evidence []byte, action interface{}) (*Report, error) {
	g.once.Do(func() {
		if g.Store == nil {
			g.Store = &MemorySeenStore{}
		}
	})
	var root map[string]interface{}
	if err := json.Unmarshal(evidence, &root); err != nil || root == nil {
		return nil, &Refusal{Check: "evidence", Detail: "the evidence is not a JSON object"}
	}
	_, isSet := root["approvalSet"]
	signed := root
	if isSet {
		signed, _ = root["approvalSet"].(map[string]interface{})
	}
	signature, _ := signed["signature"].(map[string]interface{})
	kid, _ := signature["kid"].(string)
	keys, err := g.Keys.Keys(kid)
	if err != nil {
		return nil, &Refusal{Check: "serviceSignature", Detail: "the service keys could not be read: " + err.Error()}
	}
	options := Options{Action: action, MaxAge: g.MaxAge}
	if g.Now != nil {
		options.Now = g.Now()
	}
	var report *Report
	if isSet {
		report = VerifyApprovalSet(evidence, keys, options)
	} else {
		report = VerifyReceipt(evidence, keys, options)
	}
	if !report.Valid {
		for _, c := range report.Checks {
			if !c.OK {
				return nil, &Refusal{Check: c.Name, Detail: c.Detail, Report: report}
			}
		}
	}
	ttl := g.SeenTTL
	if ttl == 0 {
		ttl = 30 * 24 * time.Hour
		if g.MaxAge > 0 {
			ttl = g.MaxAge + time.Minute
		}
	}
	fresh, err := g.Store.Claim(report.Kind+":"+report.HashHex, ttl)
	if err != nil {
		return nil, &Refusal{Check: "singleUse", Detail: "the seen-store could not be asked: " + err.Error(), Report: report}
	}
	if !fresh {
		return nil, &Refusal{Check: "singleUse", Detail: fmt.Sprintf("this evidence (%s) was presented before", report.ID), Report: report}
	}
	return report, nil
}
