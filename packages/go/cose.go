package presenceguard

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	_ "crypto/sha512" // SHA-384 and SHA-512 for crypto.Hash.New
	"errors"
	"fmt"
	"math/big"
)

type ecSpec struct {
	crv   int64
	curve elliptic.Curve
	hash  crypto.Hash
	size  int
}

var ecAlgorithms = map[int64]ecSpec{
	-7:  {1, elliptic.P256(), crypto.SHA256, 32},
	-35: {2, elliptic.P384(), crypto.SHA384, 48},
	-36: {3, elliptic.P521(), crypto.SHA512, 66},
}

type rsaSpec struct {
	hash crypto.Hash
	pss  bool
}

var rsaAlgorithms = map[int64]rsaSpec{
	-257: {crypto.SHA256, false}, -258: {crypto.SHA384, false}, -259: {crypto.SHA512, false},
	-37: {crypto.SHA256, true}, -38: {crypto.SHA384, true}, -39: {crypto.SHA512, true},
}

func coseBytes(key map[interface{}]interface{}, label int64, size int) ([]byte, error) {
	value, ok := key[label].([]byte)
	if !ok || len(value) == 0 || (size > 0 && len(value) != size) {
		return nil, fmt.Errorf("COSE key parameter %d is missing or has the wrong length", label)
	}
	return value, nil
}

// verifyCoseSignature checks a WebAuthn signature over data with a COSE_Key: ES256/384/512 (ASN.1
// DER), EdDSA (Ed25519), RS256/384/512 and PS256/384/512.
func verifyCoseSignature(coseKey, data, signature []byte) (bool, string) {
	decoded, err := decodeCBOR(coseKey)
	key, isMap := decoded.(map[interface{}]interface{})
	if err != nil || !isMap {
		return false, "the credential key cannot be used: public key is not a COSE_Key map"
	}
	alg, _ := key[int64(3)].(int64)
	kty, _ := key[int64(1)].(int64)
	crv, _ := key[int64(-1)].(int64)
	if err := verifyWith(alg, kty, crv, key, data, signature); err != nil {
		return false, fmt.Sprintf("the authenticator signature does not verify with the enrolled key (COSE alg %d): %v", alg, err)
	}
	return true, fmt.Sprintf("authenticator signature verifies with the enrolled key (COSE alg %d)", alg)
}

func verifyWith(alg, kty, crv int64, key map[interface{}]interface{}, data, signature []byte) error {
	if spec, ok := ecAlgorithms[alg]; ok {
		if kty != 2 || crv != spec.crv {
			return fmt.Errorf("EC2 curve %d does not fit the algorithm", crv)
		}
		x, err := coseBytes(key, -2, spec.size)
		if err != nil {
			return err
		}
		y, err := coseBytes(key, -3, spec.size)
		if err != nil {
			return err
		}
		pub := &ecdsa.PublicKey{Curve: spec.curve, X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		if !spec.curve.IsOnCurve(pub.X, pub.Y) {
			return errors.New("the point is not on the curve")
		}
		h := spec.hash.New()
		h.Write(data)
		if !ecdsa.VerifyASN1(pub, h.Sum(nil), signature) {
			return errors.New("ECDSA signature does not verify")
		}
		return nil
	}
	if alg == -8 {
		if kty != 1 || crv != 6 {
			return fmt.Errorf("OKP curve %d does not fit EdDSA (only Ed25519 is supported)", crv)
		}
		x, err := coseBytes(key, -2, ed25519.PublicKeySize)
		if err != nil {
			return err
		}
		if !ed25519.Verify(ed25519.PublicKey(x), data, signature) {
			return errors.New("Ed25519 signature does not verify")
		}
		return nil
	}
	if spec, ok := rsaAlgorithms[alg]; ok {
		if kty != 3 {
			return fmt.Errorf("key type %d does not fit RSA", kty)
		}
		n, err := coseBytes(key, -1, 0)
		if err != nil {
			return err
		}
		e, err := coseBytes(key, -2, 0)
		if err != nil || len(e) > 4 {
			return errors.New("RSA key needs n and e")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		h := spec.hash.New()
		h.Write(data)
		if spec.pss {
			return rsa.VerifyPSS(pub, spec.hash, h.Sum(nil), signature, &rsa.PSSOptions{SaltLength: spec.hash.Size(), Hash: spec.hash})
		}
		return rsa.VerifyPKCS1v15(pub, spec.hash, h.Sum(nil), signature)
	}
	return fmt.Errorf("COSE algorithm %d is not supported", alg)
}
