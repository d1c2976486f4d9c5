"""The Python gate agrees with the Rust one (crates/testkit/src/slow.rs) value by value."""

import pytest

from slow_gate import VAR, slow_from


def test_one_is_on_zero_and_unset_are_off_anything_else_is_an_error():
    assert slow_from(None) is False
    assert slow_from("0") is False
    assert slow_from("1") is True
    for bad in ["", " 1", "1\n", "yes", "true", "2", "off"]:
        with pytest.raises(ValueError, match=VAR):
            slow_from(bad)
