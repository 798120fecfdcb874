"""The control-phrase index (lexicon._kind_of) finds exactly what comparing a piece with every
control phrase finds: the index only skips phrases of another length and pieces with a word that
is no control word even with a slip."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import OSA

from conversations import lexicon


def _brute(piece: str) -> str | None:
    exact = next((k for k, phrases in lexicon._KINDS if piece in phrases), None)
    if exact is not None or not any(len(w) >= 5 for w in piece.split()):
        return exact
    words = piece.split()
    for kind, phrases in lexicon._KINDS:
        for phrase in sorted(phrases):
            other = phrase.split()
            if len(other) == len(words) and all(a == b or (min(len(a), len(b)) >= 5 and OSA.distance(
                    a, b, score_cutoff=1) <= 1) for a, b in zip(words, other, strict=True)):
                return kind
    return None


def _slipped(phrase: str, rng: random.Random) -> str:
    words = phrase.split()
    long = [i for i, w in enumerate(words) if len(w) >= 6]
    if not long:
        return phrase
    i = rng.choice(long)
    j = rng.randrange(len(words[i]))
    words[i] = words[i][:j] + words[i][j + 1:]  # one letter dropped
    return " ".join(words)


def _pieces() -> list[str]:
    rng = random.Random(7)
    phrases = sorted(p for _, group in lexicon._KINDS for p in group)
    sample = rng.sample(phrases, 300)
    requests = ["abra a permissao 7001", "mude a validade da permissao 7001 para 33 dias", "qual o status dela",
                "cancel inspection 52 please", "desfaz a ultima alteracao", "pode seguir com isso"]
    grams = [" ".join(r.split()[i:j]) for r in requests for i in range(len(r.split()))
             for j in range(i + 1, len(r.split()) + 1)]
    return sample + [_slipped(p, rng) for p in sample] + grams


@pytest.mark.parametrize("piece", _pieces())
def test_index_finds_what_every_phrase_finds(piece):
    assert lexicon._kind_of(piece) == _brute(piece)


@pytest.mark.parametrize(("text", "kind"), [
    ("sim", "confirm"), ("deixa queito", "decline"), ("cofirma", "confirm"),
    ("abra a permissao 7001", None), ("mude a validade da permissao 7001 para 33 dias", None),
])
def test_control_run_table(text, kind):
    assert lexicon.control_run(text) == kind
