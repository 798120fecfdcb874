"""Numbers read aloud by their hundreds digit ("three-ten" = 310) become digits (dates.numbers_as_digits);
words that only look alike stay words."""

from __future__ import annotations

import pytest

from conversations.dates import numbers_as_digits


@pytest.mark.parametrize(("text", "expected"), [
    ("take working at height off permit three-ten", "take working at height off permit 310"),
    ("open permit three-twelve", "open permit 312"),
    ("inspection four-oh-seven", "inspection 407"),
    ("permit nine-ninety-nine", "permit 999"),
    ("a three-day delay", "a three-day delay"),
    ("one-two punch", "one-two punch"),
    ("twenty-five days", "25 days"),
])
def test_a_number_said_by_its_hundreds_digit_is_read_as_digits(text, expected):
    assert numbers_as_digits(text, "en") == expected
