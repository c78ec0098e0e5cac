// Command presence-guard checks Presence evidence offline:
//
//	presence-guard verify-receipt RECEIPT.json --keys keys.json [--action ACTION.json] [--max-age SECONDS]
//	presence-guard verify-approval-set SET.json --keys keys.json [--action ACTION.json] [--max-age SECONDS]
//	presence-guard action-hash ACTION.json
//
// One line per check; exit 0 only when every check passes, 1 when one fails, 2 on a usage error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	presenceguard "presence.dev/guard"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func usage() int {
	fmt.Fprintln(os.Stderr, "usage: presence-guard verify-receipt|verify-approval-set FILE --keys keys.json [--action ACTION.json] [--max-age SECONDS] (in any order)\n       presence-guard action-hash ACTION.json")
	return 2
}

// parseInterspersed parses flags and positional arguments in any order (the flag package stops
// at the first positional one), as Python's argparse does: FILE may come before, between or after
// the flags.
func parseInterspersed(flags *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := flags.Parse(args); err != nil {
			return nil, err
		}
		if flags.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, flags.Arg(0))
		args = flags.Args()[1:]
	}
}

func run(args []string) int {
	if len(args) < 1 {
		return usage()
	}
	command := args[0]
	if command != "verify-receipt" && command != "verify-approval-set" && command != "action-hash" {
		return usage()
	}
	flags := flag.NewFlagSet(command, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	keysFile := flags.String("keys", "", "a saved /.well-known/presence/keys.json")
	actionFile := flags.String("action", "", "the action you are about to execute (JSON)")
	maxAge := flags.Float64("max-age", 0, "refuse evidence older than this many seconds")
	positional, err := parseInterspersed(flags, args[1:])
	if err != nil || len(positional) != 1 {
		return usage()
	}
	file := positional[0]
	if command == "action-hash" {
		if *keysFile != "" || *actionFile != "" || *maxAge != 0 {
			return usage()
		}
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "presence-guard:", err)
			return 2
		}
		hash, err := presenceguard.ActionHash(json.RawMessage(data))
		if err != nil {
			fmt.Fprintln(os.Stderr, "presence-guard:", err)
			return 2
		}
		fmt.Println(hash)
		return 0
	}
	if *keysFile == "" {
		return usage()
	}
	evidence, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "presence-guard:", err)
		return 2
	}
	keysData, err := os.ReadFile(*keysFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "presence-guard:", err)
		return 2
	}
	keys, err := presenceguard.ParseKeys(keysData)
	if err != nil {
		fmt.Fprintln(os.Stderr, "presence-guard:", err)
		return 2
	}
	options := presenceguard.Options{MaxAge: time.Duration(*maxAge * float64(time.Second))}
	if *actionFile != "" {
		action, err := os.ReadFile(*actionFile)
		if err != nil || !json.Valid(action) {
			fmt.Fprintln(os.Stderr, "presence-guard: cannot read the action as JSON:", *actionFile)
			return 2
		}
		options.Action = json.RawMessage(action)
	}
	var report *presenceguard.Report
	if command == "verify-receipt" {
		report = presenceguard.VerifyReceipt(json.RawMessage(evidence), keys, options)
	} else {
		report = presenceguard.VerifyApprovalSet(json.RawMessage(evidence), keys, options)
	}
	for _, c := range report.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Printf("%s %s: %s\n", mark, c.Name, c.Detail)
	}
	summary, _ := json.Marshal(map[string]string{"id": report.ID, "hashHex": report.HashHex})
	if report.Valid {
		fmt.Printf("VALID %s\n", summary)
		return 0
	}
	fmt.Printf("INVALID %s\n", summary)
	return 1
}
