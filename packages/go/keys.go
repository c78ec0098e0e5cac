package presenceguard

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// KeySource gives the service keys a guard trusts; kid names the key the evidence was signed
// with ("" when unknown).
type KeySource interface {
	Keys(kid string) ([]ServiceKey, error)
}

// PinnedKeys: a saved keys.json, for air-gapped executors.
type PinnedKeys []ServiceKey

// Keys returns the pinned keys.
func (p PinnedKeys) Keys(string) ([]ServiceKey, error) { return p, nil }

// FetchedKeys fetches <service>/.well-known/presence/keys.json and caches it for CacheFor
// (default 1 hour); an unknown key id re-fetches at most every RefetchAfter (default 30 s), so
// a key rotation needs no restart. After a failed fetch no new one is tried for RetryAfter
// (default 5 s): meanwhile the cached document serves while within CacheFor, and without one Keys
// returns an error (the guard refuses, check "serviceSignature").
type FetchedKeys struct {
	URL          string
	CacheFor     time.Duration
	RefetchAfter time.Duration
	RetryAfter   time.Duration
	Client       *http.Client
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu       sync.Mutex
	cached   []ServiceKey
	at       time.Time
	failedAt time.Time
	failure  error
}

func (f *FetchedKeys) fetch(now time.Time) ([]ServiceKey, error) {
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	response, err := client.Get(f.URL)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d", f.URL, response.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	keys, err := ParseKeys(body)
	if err != nil {
		return nil, err
	}
	f.cached, f.at, f.failure = keys, now, nil
	return keys, nil
}

func orDefault(d, fallback time.Duration) time.Duration {
	if d == 0 {
		return fallback
	}
	return d
}

// Keys returns the cached keys, fetching when they are stale or kid is unknown.
func (f *FetchedKeys) Keys(kid string) ([]ServiceKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	age := now.Sub(f.at)
	fresh := f.cached != nil && age < orDefault(f.CacheFor, time.Hour)
	known := kid == ""
	for _, k := range f.cached {
		known = known || k.Kid == kid
	}
	if fresh && (known || age < orDefault(f.RefetchAfter, 30*time.Second)) {
		return f.cached, nil
	}
	// A fetch is due; after a failed one, wait RetryAfter (no request per call while the service is down).
	retry := orDefault(f.RetryAfter, 5*time.Second)
	if f.failure != nil && now.Sub(f.failedAt) < retry {
		if fresh {
			return f.cached, nil
		}
		return nil, fmt.Errorf("%v (no new fetch until %v after that failure)", f.failure, retry)
	}
	keys, err := f.fetch(now)
	if err != nil {
		f.failure, f.failedAt = err, now
		if fresh {
			return f.cached, nil
		}
		return nil, err
	}
	return keys, nil
}
