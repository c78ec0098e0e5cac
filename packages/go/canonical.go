package presenceguard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseJSON decodes JSON text keeping numbers as json.Number, so that Canonicalize rounds them to
// doubles exactly as JavaScript does. The text must be I-JSON (RFC 7493), as RFC 8785 requires:
// valid UTF-8 without an unpaired \uD800-\uDFFF escape. encoding/json would silently turn both
// into U+FFFD, and the action would hash differently than in TypeScript and Python.
func ParseJSON(data []byte) (interface{}, error) {
	if err := checkIJSONText(data); err != nil {
		return nil, err
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	if decoder.More() {
		return nil, errors.New("data follows the JSON value")
	}
	return value, nil
}

// normalize turns any Go value into the generic JSON shape with json.Number numbers: []byte and
// json.RawMessage are parsed as JSON text, anything else (structs, maps holding ints or float64)
// goes through encoding/json first.
func normalize(value interface{}) (interface{}, error) {
	switch v := value.(type) {
	case json.RawMessage:
		return ParseJSON(v)
	case []byte:
		return ParseJSON(v)
	case nil, bool, string, json.Number:
		return v, nil
	}
	data, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	return ParseJSON(data)
}

// Canonicalize returns the RFC 8785 (JCS) canonical bytes of a JSON value.
func Canonicalize(value interface{}) ([]byte, error) {
	v, err := normalize(value)
	if err != nil {
		return nil, err
	}
	return canonicalGeneric(v)
}

// canonicalGeneric canonicalizes a value already in the generic shape ParseJSON returns.
func canonicalGeneric(v interface{}) ([]byte, error) {
	var out strings.Builder
	if err := writeCanonical(&out, v); err != nil {
		return nil, err
	}
	return []byte(out.String()), nil
}

// ActionHash is actionHashHex: lowercase hex SHA-256 of the canonical bytes of the action.
func ActionHash(action interface{}) (string, error) {
	canonical, err := Canonicalize(action)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

func writeCanonical(out *strings.Builder, value interface{}) error {
	switch v := value.(type) {
	case nil:
		out.WriteString("null")
	case bool:
		out.WriteString(strconv.FormatBool(v))
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil && !math.IsInf(f, 0) {
			return err
		}
		return writeNumber(out, f)
	case float64:
		return writeNumber(out, v)
	case string:
		return writeString(out, v)
	case []interface{}:
		out.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeCanonical(out, item); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case map[string]interface{}:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeString(out, k); err != nil {
				return err
			}
			out.WriteByte(':')
			if err := writeCanonical(out, v[k]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	default:
		return fmt.Errorf("%T has no canonical JSON form", value)
	}
	return nil
}

func lessUTF16(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

// writeNumber prints a double as ECMAScript's Number::toString (ECMA-262 7.1.12.1).
func writeNumber(out *strings.Builder, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return errors.New("NaN and Infinity have no canonical JSON form")
	}
	if f == 0 {
		out.WriteByte('0')
		return nil
	}
	if f < 0 {
		out.WriteByte('-')
		f = -f
	}
	text := strconv.FormatFloat(f, 'e', -1, 64) // shortest digits: d.ddddde±XX
	mantissa, exponent := text[:strings.IndexByte(text, 'e')], text[strings.IndexByte(text, 'e')+1:]
	digits := strings.Replace(mantissa, ".", "", 1)
	e, _ := strconv.Atoi(exponent)
	k, n := len(digits), e+1
	switch {
	case k <= n && n <= 21:
		out.WriteString(digits + strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		out.WriteString(digits[:n] + "." + digits[n:])
	case -6 < n && n <= 0:
		out.WriteString("0." + strings.Repeat("0", -n) + digits)
	default:
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		abs := n - 1
		if abs < 0 {
			abs = -abs
		}
		if k == 1 {
			out.WriteString(digits + "e" + sign + strconv.Itoa(abs))
		} else {
			out.WriteString(digits[:1] + "." + digits[1:] + "e" + sign + strconv.Itoa(abs))
		}
	}
	return nil
}

// checkIJSONText refuses invalid UTF-8 and an escape of a lone surrogate in JSON text; the rest
// of the syntax is left to encoding/json.
func checkIJSONText(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("the JSON text is not valid UTF-8")
	}
	inString := false
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '"':
			inString = !inString
		case inString && data[i] == '\\' && i+1 < len(data):
			i++
			if data[i] != 'u' {
				continue
			}
			unit, ok := hexUnit(data, i+1)
			switch {
			case !ok || unit < 0xD800 || unit > 0xDFFF:
				continue
			case unit <= 0xDBFF && i+10 < len(data) && data[i+5] == '\\' && data[i+6] == 'u':
				if low, ok := hexUnit(data, i+7); ok && low >= 0xDC00 && low <= 0xDFFF {
					i += 10
					continue
				}
			}
			return fmt.Errorf(`the JSON text holds the lone surrogate \u%04x: I-JSON (RFC 7493) strings are well-formed Unicode`, unit)
		}
	}
	return nil
}

// hexUnit reads the four hex digits of a \u escape starting at data[at].
func hexUnit(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	unit, err := strconv.ParseUint(string(data[at:at+4]), 16, 16)
	return rune(unit), err == nil
}

func writeString(out *strings.Builder, s string) error {
	if !utf8.ValidString(s) {
		return errors.New("a string is not valid UTF-8 (a lone surrogate or a stray byte): I-JSON strings are well-formed Unicode")
	}
	out.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\b':
			out.WriteString(`\b`)
		case '\t':
			out.WriteString(`\t`)
		case '\n':
			out.WriteString(`\n`)
		case '\f':
			out.WriteString(`\f`)
		case '\r':
			out.WriteString(`\r`)
		default:
			if r < 0x20 {
				fmt.Fprintf(out, `\u%04x`, r)
			} else {
				out.WriteRune(r)
			}
		}
	}
	out.WriteByte('"')
	return nil
}
