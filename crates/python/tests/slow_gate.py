"""The one gate of the slow suites, read as the Rust tests read it
(`espalier_testkit::slow`, crates/testkit/src/slow.rs): `ESPALIER_SLOW=1` on, unset or
`0` off, anything else an error naming the variable, so a typo does not silently run
the fast suites instead. scripts/test-python.sh asks here too
(`python tests/slow_gate.py` prints 1 or 0, or fails with the message)."""

import os
import sys

VAR = "ESPALIER_SLOW"


def slow_from(value):
    """The gate on an explicit value of the variable (`None`: unset)."""
    if value is None or value == "0":
        return False
    if value == "1":
        return True
    raise ValueError(f"{VAR}={value!r}: expected 1 (slow suites on) or 0 / unset (off)")


def slow():
    """Whether the slow suites run (raises ValueError on a bad value)."""
    return slow_from(os.environ.get(VAR))


if __name__ == "__main__":
    try:
        print(int(slow()))
    except ValueError as e:
        sys.exit(str(e))
