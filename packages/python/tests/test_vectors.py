"""Every cross-language vector: the checks a vector names fail, every other passes."""
import unittest

from presence_guard import WebhookVerificationError, action_hash, canonical_json, verify_approval_set, verify_receipt, verify_webhook
from presence_guard.canonical import parse_json

from .vectors import load


class Canonicalization(unittest.TestCase):
    def test_every_case(self) -> None:
        data = load("canonicalization.json")
        self.assertGreater(len(data["cases"]), 40)
        for case in data["cases"]:
            with self.subTest(case["name"]):
                value = parse_json(case["inputText"])
                self.assertEqual(canonical_json(value), case["canonical"])
                self.assertEqual(action_hash(value), case["sha256Hex"])

    def test_refuses_what_has_no_canonical_form(self) -> None:
        for case in load("canonicalization.json")["errors"]:
            with self.subTest(case["name"]), self.assertRaises(ValueError):
                canonical_json(parse_json(case["inputText"]))

    def test_action_hashes(self) -> None:
        for case in load("action-hashes.json"):
            with self.subTest(case["name"]):
                self.assertEqual(canonical_json(case["action"]), case["canonical"])
                self.assertEqual(action_hash(case["action"]), case["actionHashHex"])


class Receipts(unittest.TestCase):
    def test_every_vector(self) -> None:
        vectors = load("receipts.json")
        self.assertGreater(len(vectors), 20)
        for v in vectors:
            with self.subTest(v["name"]):
                report = verify_receipt(v["signed"], load(v["keys"]), v.get("action"), v.get("maxAgeSeconds"), v.get("now"))
                self.assertEqual(sorted(report.failed), sorted(v["expect"]["failed"]), report.checks)
                self.assertEqual(report.valid, v["expect"]["valid"])


class ApprovalSets(unittest.TestCase):
    def test_every_vector(self) -> None:
        vectors = load("approval-sets.json")
        self.assertGreater(len(vectors), 10)
        for v in vectors:
            with self.subTest(v["name"]):
                report = verify_approval_set(v["evidence"], load(v["keys"]), v.get("action"))
                self.assertEqual(sorted(report.failed), sorted(v["expect"]["failed"]), report.checks)
                self.assertEqual(report.valid, v["expect"]["valid"])


class Webhooks(unittest.TestCase):
    def test_every_vector(self) -> None:
        for v in load("webhooks.json"):
            with self.subTest(v["name"]):
                run = lambda: verify_webhook(v["secrets"], v["headers"], v["rawBody"], now=v["now"])  # noqa: E731
                if v["expect"]["valid"]:
                    self.assertEqual(run()["scheme"], v["expect"]["scheme"])
                else:
                    with self.assertRaises(WebhookVerificationError) as caught:
                        run()
                    self.assertEqual(caught.exception.code, v["expect"]["error"])


if __name__ == "__main__":
    unittest.main()
