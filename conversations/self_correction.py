"""A correction inside one message: "move it to the 20th... no wait, the 22nd", "em 50 dias... não, 55".

The user's last word wins: the message is read as if the value after the marker had been typed in
place of the head's value of the same kind — the head's last date phrase for a date, its last number
for a bare number. The marker must follow a pause (",", "...", "…", ";", a dash) and be one of the
correction words below; "não" alone needs a comma after it ("opa, 50, não 40" says the proposal's
value again and is swaps.py's). A tail that says neither a date nor a number, or a head without a
value of its kind, leaves the message as typed: then the correction flow reads it as usual.

Hand-written: it rewrites the raw text before any reading, with the same word positions dates.py
and freetext.py use; no kept library reads in-sentence self-repairs.
"""

from __future__ import annotations

import re

from knowledge.text import fold, words

from . import lexicon
from .dates import date_spans

_PAUSE = r"(?:\.{2,}|…|[,;—–?]|\s-)\s*"  # ("qual a <campo> da 310? digo, da 311": a question, then its repair)
_NO = r"(?:n[ãa]o|no|nope)"
_WORDS = (r"espera|pera|wait|digo|ops|opa|oops|whoops|quer dizer|quero dizer|ou melhor|ali[áa]s|na verdade|i mean|"
          r"actually|sorry|or rather|rather|make (?:that|it)|scratch that|melhor dizendo|corrigindo|correction")
# ("muda pra 40 não pera deixa pra lá": typed or dictated without a pause, a no then a hold is a repair too)
_HOLD = r"(?:espera|pera|peraí|perai|wait|hold on)"
_MARKER = re.compile(
    rf"(?:{_PAUSE}(?:{_NO}\s*,\s*(?:(?:{_WORDS})\b\s*,?\s*)?|(?:{_NO}\s+)?(?:{_WORDS})\b\s*[,:]?\s*)"
    rf"|\s+{_NO}\s+{_HOLD}\b\s*[,:]?\s*)(?P<tail>[^.…]+?)[.!?\s]*$",
    re.IGNORECASE,
)
_TAIL_WORDS = 5
_POINTING_AT = re.compile(r"(?i)\b(?:one with|ones with|a de|o de|a com|o com|aquela de|aquele de|naquela de|"
                          r"naquele de|na de|no de)\s*$")
_ONE_AFTER = re.compile(r"(?i)\W*(?:days?|dias?)?\W*one\b")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DIGITS = re.compile(r"\d+")


def said_last(text: str, language: str | None = None) -> str:
    """The message with its self-correction applied (module docstring), or as typed."""
    match = _MARKER.search(text)
    if match is None or match.start() == 0:
        return text
    withdrawn = _withdrawn(match.group("tail"))
    if withdrawn is not None:
        return withdrawn  # "bump it to 20 days... actually nah, leave it as is": withdrawn
    head, tail = text[:match.start()], _without_remark(text[:match.start()], match.group("tail").strip())
    short = len(words(fold(head))) < 2 and not head.strip().isdigit()  # ("50... não, 40": a number alone is a head)
    if not tail or len(words(fold(tail))) > _TAIL_WORDS or short:
        return text
    tail_dates = date_spans(tail, language)
    if tail_dates:
        return _replace_last_date(head, tail, tail_dates, language) or text
    number = _DIGITS.search(tail)
    said = list(_DIGITS.finditer(head))
    if number is None or not said:
        return text
    last = said[-1]
    if _POINTING_AT.search(head[:last.start()]) or _ONE_AFTER.match(head[last.end():]):
        return text  # "the 45-day one, make it 30", "a de 15 dias, põe 20": the number says which one, no value
    before = head[:last.start()]
    if _DENIED_BEFORE.search(before):  # "sorry, not 40, make it 45": the denial goes with the value it denies
        before = _DENIED_BEFORE.sub("", before)
    rest = tail[number.end():]
    unit = words(fold(head[last.end():]))[:1]
    rest_spans = _char_spans(rest)
    if unit and rest_spans and words(fold(rest))[:1] == unit:  # "50 dias… não, 55 dias": the unit is said once
        rest = rest[rest_spans[0][1]:]
    return _joined(before + number.group(0) + head[last.end():], rest)


def _withdrawn(tail: str) -> str | None:
    """The words that take the request back, when the tail does: a no or a cancel, then at most clauses that say
    no again ("… actually no, forget it, don't delete anything" → "no, forget it"); else None."""
    clauses = [c for c in re.split(r"[,;]", tail) if lexicon.phrase(c)]
    said = next((n for n in range(len(clauses), 0, -1)
                 if lexicon.control_run(lexicon.phrase(" ".join(clauses[:n]))) in ("decline", "cancel")), 0)
    if said and all(_NEGATED.search(lexicon.phrase(c)) for c in clauses[said:]):
        return ",".join(clauses[:said]).strip()
    return None


_DENIED_BEFORE = re.compile(r"(?i)\b(?:n[ãa]o|not|no)\s*$")
_NEGATED = re.compile(r"\b(?:nao|no|not|don t|dont|do not|never|nunca|nada|nothing)\b")


def _without_remark(head: str, tail: str) -> str:
    """"… na 310, aliás, na 311, a 310 nem tem <x>": a clause after the corrected value that names the value
    replaced again says why (the user's last word is still the correction) — it is left out."""
    clause, _, remark = tail.partition(",") if "," in tail else tail.partition(";")
    said = list(_DIGITS.finditer(head))
    if not remark or not said or not _DIGITS.search(clause) or said[-1].group(0) not in _DIGITS.findall(remark):
        return tail
    return clause.strip()


def _joined(corrected: str, rest: str) -> str:
    """"com 20 dias, não, 30 dias, responsável Ana": what the tail says after its value goes on."""
    rest = rest.strip(" ,;")
    return f"{corrected.rstrip()}, {rest}" if words(fold(rest)) else corrected


def _replace_last_date(head: str, tail: str, tail_dates: list[tuple[int, int]], language: str | None) -> str | None:
    spans, tail_spans = _char_spans(head), _char_spans(tail)
    head_dates = date_spans(head, language)
    if not head_dates or spans is None or tail_spans is None:
        return None
    start, end = max(head_dates)
    t_start, t_end = max(tail_dates, key=lambda s: s[1] - s[0])
    said = tail[tail_spans[t_start][0]:tail_spans[t_end - 1][1]]
    return _joined(head[:spans[start][0]] + said + head[spans[end - 1][1]:], tail[tail_spans[t_end - 1][1]:])


def _char_spans(text: str) -> list[tuple[int, int]] | None:
    """Each word of `words(fold(text))` as a character span of `text` (None where the two disagree)."""
    spans = [m.span() for m in _WORD.finditer(text)]
    return spans if len(spans) == len(words(fold(text))) else None


# "não, em vez de aprovar, cancela ela", "instead of Friday, make it Monday", "use 45 instead of 40": what is not
# wanted, said after "instead of", is left out — a verb or a value there is never the request
_INSTEAD = re.compile(r"(?i)\b(?:em vez de|ao inv[ée]s de|no lugar de|instead of|rather than)\s+"
                      r"(?:[^\W_]+\s+){0,2}?[^\W_]+\s*,")  # (only before a comma: "coloca 55 em vez de 50" stays)


def instead_left_out(text: str) -> str:
    """The message without what it says is not wanted ("em vez de <x>"), or as typed."""
    out = _INSTEAD.sub(" ", text)
    return text if not out.strip(" ,.") else " ".join(out.split())
