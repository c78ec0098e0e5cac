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
// a key rotation needs no restart.
type FetchedKeys struct {
	URL          string
	CacheFor     time.Duration
	RefetchAfter time.Duration
	Client       *http.Client

	mu     sync.Mutex
	cached []ServiceKey
	at     time.Time
}

func (f *FetchedKeys) fetch() ([]ServiceKey, error) {
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
	f.cached, f.at = keys, time.Now()
	return keys, nil
}

// Keys returns the cached keys, fetching when they are stale or kid is unknown.
func (f *FetchedKeys) Keys(kid string) ([]ServiceKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cacheFor, refetch := f.CacheFor, f.RefetchAfter
	if cacheFor == 0 {
		cacheFor = time.Hour
	}
	if refetch == 0 {
		refetch = 30 * time.Second
	}
	age := time.Since(f.at)
	if f.cached == nil || age >= cacheFor {
		return f.fetch()
	}
	known := kid == ""
	for _, k := range f.cached {
		known = known || k.Kid == kid
	}
	if !known && age >= refetch {
		return f.fetch()
	}
	return f.cached, nil
}
