"""Bad evidence is a failed check, never an exception: every member of a real receipt and of a real
approval set replaced by values of every JSON type, and odd base64url lengths."""
import copy
import unittest

from presence_guard import verify_approval_set, verify_receipt

from .vectors import load

ODD_VALUES = [None, True, 0, -1, 1.5, "", "A", "AAAAA", "not base64!", [], {}, {"a": 1}]


class Robustness(unittest.TestCase):
    def test_receipt_members(self) -> None:
        signed, keys = load("receipt.json"), load("keys.json")
        for name in signed["receipt"]:
            for value in ODD_VALUES:
                if value == signed["receipt"][name] and type(value) is type(signed["receipt"][name]):
                    continue
                with self.subTest(member=name, value=value):
                    changed = copy.deepcopy(signed)
                    changed["receipt"][name] = value
                    self.assertFalse(verify_receipt(changed, keys).valid)
        for outer in ("receipt", "signature", "receiptHashHex"):
            for value in ODD_VALUES:
                with self.subTest(outer=outer, value=value):
                    self.assertFalse(verify_receipt({**signed, outer: value}, keys).valid)

    def test_approval_set_members(self) -> None:
        evidence, keys = load("approval-set.json"), load("keys.json")
        for name in evidence["approvalSet"]["approvalSet"]:
            for value in ODD_VALUES:
                if value == evidence["approvalSet"]["approvalSet"][name] and type(value) is type(evidence["approvalSet"]["approvalSet"][name]):
                    continue
                with self.subTest(member=name, value=value):
                    changed = copy.deepcopy(evidence)
                    changed["approvalSet"]["approvalSet"][name] = value
                    self.assertFalse(verify_approval_set(changed, keys).valid)
        for value in ODD_VALUES:
            with self.subTest(receipts=value):
                self.assertFalse(verify_approval_set({**evidence, "receipts": value}, keys).valid)
            with self.subTest(approvalSet=value):
                self.assertFalse(verify_approval_set({**evidence, "approvalSet": value}, keys).valid)
