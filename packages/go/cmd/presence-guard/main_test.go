package main

import (
	"os"
	"path/filepath"
	"testing"
)

func vectorPath(name string) string {
	dir := os.Getenv("PRESENCE_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "conformance", "cross-language")
	}
	return filepath.Join(dir, name)
}

// FILE and the flags in any order, as the Python command accepts them.
func TestArgumentsInAnyOrder(t *testing.T) {
	receipt, keys := vectorPath("receipt.json"), vectorPath("keys.json")
	action, other := vectorPath("action.json"), vectorPath("other-action.json")
	cases := []struct {
		args []string
		exit int
	}{
		{[]string{"verify-receipt", receipt, "--keys", keys, "--action", action}, 0},
		{[]string{"verify-receipt", "--keys", keys, "--action", action, receipt}, 0},
		{[]string{"verify-receipt", "--keys", keys, receipt, "--action", action}, 0},
		{[]string{"verify-receipt", "--keys=" + keys, receipt, "--action=" + other}, 1},
		{[]string{"verify-receipt", "--action", other, "--keys", keys, receipt}, 1},
		{[]string{"verify-approval-set", "--keys", keys, vectorPath("approval-set.json"), "--action", action}, 0},
		{[]string{"action-hash", action}, 0},
		{[]string{"verify-receipt", "--keys", keys}, 2},
		{[]string{"verify-receipt", receipt, receipt, "--keys", keys}, 2},
		{[]string{"verify-receipt", receipt}, 2},
		{[]string{"verify-receipt", receipt, "--keys", keys, "--unknown"}, 2},
		{[]string{"action-hash", action, "--keys", keys}, 2},
		{[]string{"sign", receipt}, 2},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.exit {
			t.Errorf("presence-guard %v: exit %d, want %d", c.args, got, c.exit)
		}
	}
}
