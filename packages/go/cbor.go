package presenceguard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// decodeCBOR decodes exactly one CBOR item spanning all of data: the subset WebAuthn needs
// (integers, byte and text strings, arrays, maps, tags, simple values and floats).
func decodeCBOR(data []byte) (interface{}, error) {
	value, end, err := cborItem(data, 0, 0)
	if err != nil {
		return nil, err
	}
	if end != len(data) {
		return nil, fmt.Errorf("%d bytes follow the CBOR item", len(data)-end)
	}
	return value, nil
}

var errTruncated = errors.New("truncated CBOR")

func cborArgument(data []byte, pos int, info byte) (uint64, int, error) {
	if info < 24 {
		return uint64(info), pos, nil
	}
	size := map[byte]int{24: 1, 25: 2, 26: 4, 27: 8}[info]
	if size == 0 {
		return 0, pos, errors.New("indefinite lengths and reserved values are not supported")
	}
	if pos+size > len(data) {
		return 0, pos, errTruncated
	}
	var value uint64
	for _, b := range data[pos : pos+size] {
		value = value<<8 | uint64(b)
	}
	return value, pos + size, nil
}

func cborItem(data []byte, pos, depth int) (interface{}, int, error) {
	if depth > 16 {
		return nil, pos, errors.New("CBOR nested too deeply")
	}
	if pos >= len(data) {
		return nil, pos, errTruncated
	}
	major, info := data[pos]>>5, data[pos]&0x1f
	pos++
	if major == 7 {
		switch info {
		case 20:
			return false, pos, nil
		case 21:
			return true, pos, nil
		case 22:
			return nil, pos, nil
		case 26:
			if pos+4 > len(data) {
				return nil, pos, errTruncated
			}
			return float64(math.Float32frombits(binary.BigEndian.Uint32(data[pos:]))), pos + 4, nil
		case 27:
			if pos+8 > len(data) {
				return nil, pos, errTruncated
			}
			return math.Float64frombits(binary.BigEndian.Uint64(data[pos:])), pos + 8, nil
		}
		return nil, pos, fmt.Errorf("unsupported CBOR simple value %d", info)
	}
	arg, pos, err := cborArgument(data, pos, info)
	if err != nil {
		return nil, pos, err
	}
	switch major {
	case 0:
		return int64(arg), pos, nil
	case 1:
		return -1 - int64(arg), pos, nil
	case 2, 3:
		if uint64(len(data)-pos) < arg {
			return nil, pos, errTruncated
		}
		chunk := data[pos : pos+int(arg)]
		if major == 2 {
			return append([]byte(nil), chunk...), pos + int(arg), nil
		}
		return string(chunk), pos + int(arg), nil
	case 4:
		items := []interface{}{}
		for i := uint64(0); i < arg; i++ {
			var item interface{}
			if item, pos, err = cborItem(data, pos, depth+1); err != nil {
				return nil, pos, err
			}
			items = append(items, item)
		}
		return items, pos, nil
	case 5:
		out := map[interface{}]interface{}{}
		for i := uint64(0); i < arg; i++ {
			var key, value interface{}
			if key, pos, err = cborItem(data, pos, depth+1); err != nil {
				return nil, pos, err
			}
			switch key.(type) {
			case int64, string:
			default:
				return nil, pos, errors.New("CBOR map keys must be integers or text")
			}
			if _, seen := out[key]; seen {
				return nil, pos, errors.New("a CBOR map has a key twice")
			}
			if value, pos, err = cborItem(data, pos, depth+1); err != nil {
				return nil, pos, err
			}
			out[key] = value
		}
		return out, pos, nil
	case 6:
		return cborItem(data, pos, depth+1)
	}
	return nil, pos, fmt.Errorf("unsupported CBOR major type %d", major)
}
