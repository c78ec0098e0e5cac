"""Every cross-language vector: the checks a vector names fail, every other passes. A member this
runner does not know fails the vector, so a new kind of vector cannot be silently ignored."""
import unittest
from typing import Any, Iterable

from presence_guard import WebhookVerificationError, action_hash, canonical_json, verify_approval_set, verify_receipt, verify_webhook
from presence_guard.canonical import parse_json

from .vectors import load

EVIDENCE_MEMBERS = {"name", "keys", "action", "maxAgeSeconds", "now", "expect"}


class Runner(unittest.TestCase):
    def only_known(self, value: Any, known: Iterable[str]) -> None:
        self.assertEqual(sorted(set(value) - set(known)), [], "members this runner does not read")


class Canonicalization(Runner):
    def test_every_case(self) -> None:
        data = load("canonicalization.json")
        self.only_known(data, {"cases", "errors"})
        self.assertGreater(len(data["cases"]), 40)
        for case in data["cases"]:
            with self.subTest(case["name"]):
                self.only_known(case, {"name", "inputText", "canonical", "sha256Hex"})
                value = parse_json(case["inputText"])
                self.assertEqual(canonical_json(value), case["canonical"])
                self.assertEqual(action_hash(value), case["sha256Hex"])

    def test_refuses_what_has_no_canonical_form(self) -> None:
        errors = load("canonicalization.json")["errors"]
        self.assertGreater(len(errors), 5)
        for case in errors:
            with self.subTest(case["name"]):
                self.only_known(case, {"name", "inputText"})
                with self.assertRaises(ValueError):
                    canonical_json(parse_json(case["inputText"]))
                with self.assertRaises(ValueError):
                    action_hash(parse_json(case["inputText"]))

    def test_action_hashes(self) -> None:
        for case in load("action-hashes.json"):
            with self.subTest(case["name"]):
                self.only_known(case, {"name", "action", "canonical", "actionHashHex"})
                self.assertEqual(canonical_json(case["action"]), case["canonical"])
                self.assertEqual(action_hash(case["action"]), case["actionHashHex"])


class Receipts(Runner):
    def test_every_vector(self) -> None:
        vectors = load("receipts.json")
        self.assertGreater(len(vectors), 40)
        for v in vectors:
            with self.subTest(v["name"]):
                self.only_known(v, EVIDENCE_MEMBERS | {"signed"})
                self.only_known(v["expect"], {"valid", "failed"})
                report = verify_receipt(v["signed"], load(v["keys"]), v.get("action"), v.get("maxAgeSeconds"), v.get("now"))
                self.assertEqual(sorted(report.failed), sorted(v["expect"]["failed"]), report.checks)
                self.assertEqual(report.valid, v["expect"]["valid"])


class ApprovalSets(Runner):
    def test_every_vector(self) -> None:
        vectors = load("approval-sets.json")
        self.assertGreater(len(vectors), 15)
        for v in vectors:
            with self.subTest(v["name"]):
                self.only_known(v, EVIDENCE_MEMBERS | {"evidence"})
                self.only_known(v["expect"], {"valid", "failed"})
                report = verify_approval_set(v["evidence"], load(v["keys"]), v.get("action"), v.get("maxAgeSeconds"), v.get("now"))
                self.assertEqual(sorted(report.failed), sorted(v["expect"]["failed"]), report.checks)
                self.assertEqual(report.valid, v["expect"]["valid"])


class Webhooks(Runner):
    def test_every_vector(self) -> None:
        for v in load("webhooks.json"):
            with self.subTest(v["name"]):
                self.only_known(v, {"name", "secrets", "headers", "rawBody", "now", "expect"})
                self.only_known(v["expect"], {"valid", "scheme", "error"})
                run = lambda: verify_webhook(v["secrets"], v["headers"], v["rawBody"], now=v["now"])  # noqa: E731
                if v["expect"]["valid"]:
                    self.assertEqual(run()["scheme"], v["expect"]["scheme"])
                else:
                    with self.assertRaises(WebhookVerificationError) as caught:
                        run()
                    self.assertEqual(caught.exception.code, v["expect"]["error"])


if __name__ == "__main__":
    unittest.main()
