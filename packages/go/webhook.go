package presenceguard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// WebhookError carries the code of the refusal: no_secret, missing_header, invalid_timestamp,
// timestamp_out_of_tolerance, signature_mismatch or invalid_body (as the TypeScript SDK).
type WebhookError struct {
	Code    string
	Message string
}

func (e *WebhookError) Error() string { return e.Code + ": " + e.Message }

// WebhookDelivery is a verified event plus the delivery to dedupe on.
type WebhookDelivery struct {
	Event      map[string]interface{}
	DeliveryID string
	Timestamp  int64
	Scheme     string // "presence" or "standard-webhooks"
}

// WebhookOptions: several secrets during a rotation; Now and Tolerance (default 5 minutes).
type WebhookOptions struct {
	Secrets   []string
	Now       time.Time
	Tolerance time.Duration
}

var (
	timestampText = regexp.MustCompile(`^\d{1,12}$`)
	presenceMAC   = regexp.MustCompile(`^v1=[0-9a-f]{64}$`)
	standardMAC   = regexp.MustCompile(`^v1,[A-Za-z0-9+/]{43}=$`)
)

// VerifyWebhook checks a delivery with the endpoint secret; pass the body exactly as received.
func VerifyWebhook(secret string, headers http.Header, rawBody []byte) (*WebhookDelivery, error) {
	return VerifyWebhookWith(headers, rawBody, WebhookOptions{Secrets: []string{secret}})
}

func header(headers http.Header, name string, required bool) (string, error) {
	value := strings.TrimSpace(strings.Join(headers.Values(name), " "))
	if value == "" && required {
		return "", &WebhookError{"missing_header", "the " + strings.ToLower(name) + " header is missing"}
	}
	return value, nil
}

// elements splits a signature header into its elements ("v1=…" or "v1,…").
func elements(value string) []string {
	out := []string{}
	for _, part := range strings.Fields(value) {
		// A comma directly followed by another element also separates (Standard Webhooks lists).
		for len(part) > 0 {
			next := strings.Index(part[1:], ",v1")
			if next < 0 || !(strings.HasPrefix(part[next+2:], "v1=") || strings.HasPrefix(part[next+2:], "v1,")) {
				out = append(out, part)
				break
			}
			out = append(out, part[:next+1])
			part = part[next+2:]
		}
	}
	return out
}

// VerifyWebhookWith checks under X-PRESENCE-Signature when present, else Standard Webhooks.
func VerifyWebhookWith(headers http.Header, rawBody []byte, options WebhookOptions) (*WebhookDelivery, error) {
	if len(options.Secrets) == 0 {
		return nil, &WebhookError{"no_secret", "pass the endpoint secret (or secrets)"}
	}
	for _, s := range options.Secrets {
		if s == "" {
			return nil, &WebhookError{"no_secret", "pass the endpoint secret (or secrets)"}
		}
	}
	scheme, names := "standard-webhooks", [3]string{"webhook-signature", "webhook-timestamp", "webhook-id"}
	if v, _ := header(headers, "x-presence-signature", false); v != "" {
		scheme, names = "presence", [3]string{"x-presence-signature", "x-presence-timestamp", "x-presence-delivery-id"}
	}
	values := [3]string{}
	for i, name := range names {
		v, err := header(headers, name, true)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	if !timestampText.MatchString(values[1]) {
		return nil, &WebhookError{"invalid_timestamp", names[1] + " is not Unix seconds"}
	}
	timestamp, _ := strconv.ParseInt(values[1], 10, 64)
	now, tolerance := options.Now, options.Tolerance
	if now.IsZero() {
		now = time.Now()
	}
	if tolerance == 0 {
		tolerance = 5 * time.Minute
	}
	if math.Abs(float64(now.UnixMilli())/1000-float64(timestamp)) > tolerance.Seconds() {
		return nil, &WebhookError{"timestamp_out_of_tolerance", fmt.Sprintf("%s is more than %g s away from now", names[1], tolerance.Seconds())}
	}
	var prefix string
	var offered [][]byte
	for _, element := range elements(values[0]) {
		if scheme == "presence" && presenceMAC.MatchString(element) {
			mac, _ := hex.DecodeString(element[3:])
			offered = append(offered, mac)
		} else if scheme != "presence" && standardMAC.MatchString(element) {
			mac, _ := base64.StdEncoding.DecodeString(element[3:])
			offered = append(offered, mac)
		}
	}
	if scheme == "presence" {
		prefix = fmt.Sprintf("%d.%s.", timestamp, values[2])
	} else {
		prefix = fmt.Sprintf("%s.%d.", values[2], timestamp)
	}
	matched := false
	for _, secret := range options.Secrets {
		key := []byte(secret)
		if scheme != "presence" {
			key = standardKey(secret)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(prefix))
		mac.Write(rawBody)
		expected := mac.Sum(nil)
		for _, o := range offered {
			matched = matched || hmac.Equal(o, expected)
		}
	}
	if !matched {
		return nil, &WebhookError{"signature_mismatch", "no v1 signature in " + names[0] + " matches any of the secrets"}
	}
	var event map[string]interface{}
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return nil, &WebhookError{"invalid_body", "the body is not JSON"}
	}
	for _, k := range []string{"id", "type", "createdAt"} {
		if !isString(event[k]) {
			return nil, &WebhookError{"invalid_body", "the body is not a Presence event {id, type, createdAt, data}"}
		}
	}
	return &WebhookDelivery{Event: event, DeliveryID: values[2], Timestamp: timestamp, Scheme: scheme}, nil
}

// standardKey: the bytes the base64 text after whsec_ encodes (base64url accepted too).
func standardKey(secret string) []byte {
	text := strings.TrimPrefix(secret, "whsec_")
	text = strings.NewReplacer("-", "+", "_", "/").Replace(strings.TrimRight(text, "="))
	key, _ := base64.RawStdEncoding.DecodeString(text)
	return key
}
