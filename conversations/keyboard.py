"""A slip of the finger onto a neighbouring key: "opwn" for "open", "lsit"… (swaps are OSA's), or off a
key inside a short word: "lsta" for "lista".

Written here because no kept library models keyboard neighbours for typo matching: rapidfuzz counts
every substitution alike, and one substitution in a word of four letters is too often another word
("last"/"list", "obra"/"abra"). A neighbour key on a QWERTY layout (also the Brazilian ABNT2's
letter rows) is what a hurried user actually hits, so only that substitution is forgiven.
"""

from __future__ import annotations

from functools import lru_cache

_ROWS = ("qwertyuiop", "asdfghjklç", "zxcvbnm")


def _neighbours() -> dict[str, frozenset[str]]:
    near: dict[str, set[str]] = {}
    for r, row in enumerate(_ROWS):
        for c, key in enumerate(row):
            around = near.setdefault(key, set())
            for dr, dc in ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, -1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < len(_ROWS) and 0 <= cc < len(_ROWS[rr]):
                    around.add(_ROWS[rr][cc])
    return {key: frozenset(keys) for key, keys in near.items()}


_NEAR = _neighbours()
SLIP_MIN = 4


@lru_cache(maxsize=50_000)
def neighbour_slip(word: str, expected: str) -> bool:
    """`word` is `expected` with exactly one letter replaced by a key next to it, in a word of
    SLIP_MIN letters or more."""
    if len(word) != len(expected) or len(word) < SLIP_MIN or word == expected:
        return False
    diff = [(a, b) for a, b in zip(word, expected, strict=True) if a != b]
    return len(diff) == 1 and diff[0][0] in _NEAR.get(diff[0][1], frozenset())


DROP_LENGTH = 5


@lru_cache(maxsize=50_000)
def dropped_inside(word: str, expected: str) -> bool:
    """`word` is `expected`, a word of DROP_LENGTH letters, with one letter inside it not typed ("lsta" for
    "lista", "chek" for "check"). Longer words' drops are grammar.dropped_letter's; the first and last
    letters are kept, since a word one letter shorter at an end is too often another word ("lose"/"close",
    "star"/"start")."""
    if len(expected) != DROP_LENGTH or len(word) != DROP_LENGTH - 1:
        return False
    return any(expected[:i] + expected[i + 1:] == word for i in range(1, DROP_LENGTH - 1))  # (never an end letter)
