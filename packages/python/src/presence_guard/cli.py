"""``python3 -m presence_guard``: verify-receipt, verify-approval-set, action-hash. One line per
check; exit 0 only when every check passes, 1 when one fails, 2 on a usage or file error."""
import argparse
import json
import sys
from typing import List, Optional

from .approval_set import verify_approval_set
from .canonical import action_hash, parse_json
from .receipt import verify_receipt


def _load(path: str) -> object:
    with open(path, "rb") as handle:
        return parse_json(handle.read())


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m presence_guard", description="Check Presence evidence offline.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("verify-receipt", "RECEIPT.json: {receipt, receiptHashHex, signature}"), ("verify-approval-set", "SET.json: {approvalSet, receipts}")):
        command = commands.add_parser(name, help=f"verify {what}")
        command.add_argument("file")
        command.add_argument("--keys", required=True, help="a saved /.well-known/presence/keys.json")
        command.add_argument("--action", help="the action you are about to execute (JSON)")
        command.add_argument("--max-age", type=float, help="refuse evidence older than this many seconds")
    hashing = commands.add_parser("action-hash", help="print the action hash of ACTION.json")
    hashing.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.command == "action-hash":
            print(action_hash(_load(args.file)))
            return 0
        evidence, keys = _load(args.file), _load(args.keys)
        action = _load(args.action) if args.action else None
    except (OSError, ValueError, TypeError) as error:
        print(f"presence_guard: {error}", file=sys.stderr)
        return 2
    verify = verify_receipt if args.command == "verify-receipt" else verify_approval_set
    report = verify(evidence, keys, action, args.max_age)
    for name, check in report.checks.items():
        print(f"{'ok  ' if check.ok else 'FAIL'} {name}: {check.detail}")
    print(("VALID " if report.valid else "INVALID ") + json.dumps({"id": report.id, "hashHex": report.hash_hex}))
    return 0 if report.valid else 1
