package presenceguard

import (
	"bytes"
	"encoding/json"
)

// firstDuplicateMember walks JSON tokens and returns the first member name an object has twice
// ("" when none): encoding/json keeps the last one silently, WebAuthn data must not have any.
func firstDuplicateMember(data []byte) string {
	decoder := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object    bool
		names     map[string]bool
		expectKey bool
	}
	stack := []*frame{}
	for {
		token, err := decoder.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if delim, ok := token.(json.Delim); ok {
			switch delim {
			case '{':
				stack = append(stack, &frame{object: true, names: map[string]bool{}, expectKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expectKey = true
				}
			}
			continue
		}
		if top != nil && top.object {
			if top.expectKey {
				name := token.(string)
				if top.names[name] {
					return name
				}
				top.names[name] = true
				top.expectKey = false
			} else {
				top.expectKey = true
			}
		}
	}
}
