"""The command line: one line per check, exit 0 only when every check passes."""
import subprocess
import sys
import unittest
from pathlib import Path

from .vectors import DIR

SRC = Path(__file__).resolve().parents[1] / "src"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "presence_guard", *args], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)})


class Cli(unittest.TestCase):
    def test_verify_receipt(self) -> None:
        ok = run("verify-receipt", str(DIR / "receipt.json"), "--keys", str(DIR / "keys.json"), "--action", str(DIR / "action.json"))
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertIn("ok   webauthnSignature:", ok.stdout)
        bad = run("verify-receipt", str(DIR / "receipt.json"), "--keys", str(DIR / "keys.json"), "--action", str(DIR / "other-action.json"))
        self.assertEqual(bad.returncode, 1)
        self.assertIn("FAIL action:", bad.stdout)

    def test_verify_approval_set(self) -> None:
        ok = run("verify-approval-set", str(DIR / "approval-set.json"), "--keys", str(DIR / "keys.json"))
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertIn("ok   requiredApprovals:", ok.stdout)
        bad = run("verify-approval-set", str(DIR / "approval-set.json"), "--keys", str(DIR / "keys-other.json"))
        self.assertEqual(bad.returncode, 1)

    def test_action_hash_and_usage(self) -> None:
        from .vectors import load

        out = run("action-hash", str(DIR / "action.json"))
        expected = next(c for c in load("receipts.json") if c.get("action"))["signed"]["receipt"]["actionHashHex"]
        self.assertEqual(out.stdout.strip(), expected)
        self.assertEqual(run("verify-receipt", "/nonexistent.json", "--keys", str(DIR / "keys.json")).returncode, 2)


if __name__ == "__main__":
    unittest.main()
