//go:build unix

package presenceguard

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"math/big"
	"syscall"
	"testing"
)

// The Go half of bench/guards/run.mjs: the guard's receipt verification, and the raw Ed25519 +
// ECDSA P-256 verifications one receipt needs (the ceiling), on the shared vectors' receipt.
func benchReceipt(b *testing.B) (signed json.RawMessage, keys []ServiceKey, action json.RawMessage) {
	keys, err := ParseKeys(vector(b, "keys.json"))
	if err != nil {
		b.Fatal(err)
	}
	return json.RawMessage(vector(b, "receipt.json")), keys, json.RawMessage(vector(b, "action.json"))
}

// cpuSeconds is the CPU time this process used: on a shared machine wall time says little about
// what one core can do.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func reportPerCPUSecond(b *testing.B, start float64) {
	b.ReportMetric(float64(b.N)/(cpuSeconds()-start), "verifications/cpu-s")
}

func BenchmarkGuardVerifyReceipt(b *testing.B) {
	signed, keys, action := benchReceipt(b)
	if report := VerifyReceipt(signed, keys, Options{Action: action}); !report.Valid {
		b.Fatal(report.Failed())
	}
	b.ResetTimer()
	start := cpuSeconds()
	for i := 0; i < b.N; i++ {
		VerifyReceipt(signed, keys, Options{Action: action})
	}
	reportPerCPUSecond(b, start)
}

func BenchmarkRawEd25519AndECDSA(b *testing.B) {
	signed, keys, _ := benchReceipt(b)
	var outer struct {
		Receipt   map[string]interface{} `json:"receipt"`
		Signature map[string]interface{} `json:"signature"`
	}
	value, _ := ParseJSON(signed)
	data, _ := json.Marshal(value)
	_ = json.Unmarshal(data, &outer)
	receipt, _ := value.(map[string]interface{})["receipt"].(map[string]interface{})
	message, _ := Canonicalize(receipt)
	servicePublic, _ := b64url(keys[0].PublicKeyB64Url)
	serviceSig := lenientB64url(outer.Signature["signatureB64Url"].(string))
	cose, _ := decodeCBOR(lenientB64url(receipt["credentialPublicKeyB64Url"].(string)))
	key := cose.(map[interface{}]interface{})
	x, y := key[int64(-2)].([]byte), key[int64(-3)].([]byte)
	public := &ecdsa.PublicKey{Curve: ecAlgorithms[-7].curve, X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	clientHash := sha256.Sum256(lenientB64url(receipt["clientDataJSONB64Url"].(string)))
	digest := sha256.Sum256(append(lenientB64url(receipt["authenticatorDataB64Url"].(string)), clientHash[:]...))
	ecSig := lenientB64url(receipt["signatureB64Url"].(string))
	if !ed25519.Verify(servicePublic, message, serviceSig) || !ecdsa.VerifyASN1(public, digest[:], ecSig) {
		b.Fatal("the raw verifications fail")
	}
	b.ResetTimer()
	start := cpuSeconds()
	for i := 0; i < b.N; i++ {
		ed25519.Verify(servicePublic, message, serviceSig)
		ecdsa.VerifyASN1(public, digest[:], ecSig)
	}
	reportPerCPUSecond(b, start)
}
