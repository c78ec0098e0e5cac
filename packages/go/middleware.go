package presenceguard

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// EvidenceHeader carries base64url(JSON evidence); EvidenceBodyField is the body member
// alternative (an approval set with its receipts is too big for most header limits).
const (
	EvidenceHeader    = "Presence-Evidence"
	EvidenceBodyField = "presenceEvidence"
)

// MaxBodyBytes is the largest body Middleware reads (1 MiB, as the service itself accepts); a
// larger one is answered 413 application/problem+json, never handed on cut short.
const MaxBodyBytes = 1 << 20

type reportKey struct{}

// ReportFrom returns the accepted evidence's report inside a guarded handler.
func ReportFrom(r *http.Request) *Report {
	report, _ := r.Context().Value(reportKey{}).(*Report)
	return report
}

// ReadEvidence takes the evidence from the header or from the body member.
func ReadEvidence(header string, body []byte) ([]byte, error) {
	if header != "" {
		data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(header, "="))
		if err != nil || !json.Valid(data) {
			return nil, errors.New("the Presence-Evidence header is not base64url of JSON evidence")
		}
		return data, nil
	}
	var object map[string]json.RawMessage
	if json.Unmarshal(body, &object) != nil || object[EvidenceBodyField] == nil {
		return nil, errors.New("no evidence: send the Presence-Evidence header or the presenceEvidence body member")
	}
	member := object[EvidenceBodyField]
	var text string
	if json.Unmarshal(member, &text) == nil {
		return []byte(text), nil
	}
	return member, nil
}

// Middleware guards a net/http handler: action builds the action from the request and its body
// (read once, given back to the handler). A refusal is 403 application/problem+json.
func (g *Guard) Middleware(action func(r *http.Request, body []byte) (interface{}, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeProblem(w, http.StatusRequestEntityTooLarge, "payload_too_large", "The request body is too large",
					fmt.Sprintf("the body is larger than %d bytes", MaxBodyBytes))
				return
			}
			if err != nil {
				writeProblem(w, http.StatusBadRequest, "invalid_request", "The request body could not be read", err.Error())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			refuse := func(refusal *Refusal) { writeJSON(w, http.StatusForbidden, refusal.Problem()) }
			evidence, err := ReadEvidence(r.Header.Get(EvidenceHeader), body)
			if err != nil {
				refuse(&Refusal{Check: "evidence", Detail: err.Error()})
				return
			}
			value, err := action(r, body)
			if err != nil {
				refuse(&Refusal{Check: "action", Detail: "the action could not be built from the request: " + err.Error()})
				return
			}
			report, err := g.Check(evidence, value)
			var refusal *Refusal
			if errors.As(err, &refusal) {
				refuse(refusal)
				return
			}
			ctx := r.Context()
			next.ServeHTTP(w, r.WithContext(contextWith(ctx, report)))
		})
	}
}

func writeJSON(w http.ResponseWriter, status int, problem map[string]interface{}) {
	w.Header().Set("content-type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem)
}

func writeProblem(w http.ResponseWriter, status int, code, title, detail string) {
	writeJSON(w, status, map[string]interface{}{
		"type": "https://presence.dev/problems/" + code, "title": title,
		"status": status, "code": code, "detail": detail,
	})
}
