"""A date (or a number) the request moved by an amount, moved again by a correction (PRD-010 §19-§20).

"adia a <item> 52 três dias" then "não, era a 60": the amount is the request's, the date it moves is the
new item's — never the date worked out from the item corrected. "push <item> 62 back a week" then
"actually, make that ten days" / "ops, só um dia": the new amount moves the item's own date (the same way,
unless the correction says earlier) — never that many days from today. A number the same way: "estica a
<item> 310 uma semana" then "na verdade são duas semanas" is 14 days more than its <campo> now, not 14.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from .dates import date_label, shift_in
from .extraction import SlotValue
from .grammar import CapabilityGrammar
from .increments import increment_sign
from .lexicon import DAY_UNITS, tokens
from .turns import Turn

_SET_TO = frozenset(tokens("para pra pro to"))  # "não, para 44": the value itself


def moved_again(turn: Turn, cap: CapabilityGrammar, base: dict[str, Any], slots: dict[str, Any],
                changed: list[str]) -> None:
    """Update `slots`/`changed` in place when the pending request moved a date or a number by an amount and the
    correction names another item or another amount (and no date of its own)."""
    _date_moved_again(turn, cap, base, slots, changed)
    _number_moved_again(turn, cap, base, slots, changed)


def _date_moved_again(turn: Turn, cap: CapabilityGrammar, base: dict[str, Any], slots: dict[str, Any],
                      changed: list[str]) -> None:
    before = shift_in(str(base.get("text") or ""), turn.language)
    when = next((s for s in cap.slots if s.parse == "date"), None)
    item = next((s for s in cap.slots if s.parse == "reference" and s.type != "text" and slots.get(s.name)), None)
    if before is None or when is None or item is None or when.name in changed:
        return
    said = shift_in(turn.text, turn.language)
    if (said is None and item.name not in changed) or not _was_moved(turn, base, item, when, before[0]):
        return
    days = before[0] if said is None else (said[0] if said[0] < 0 else abs(said[0]) * (1 if before[0] > 0 else -1))
    try:
        moved = date.fromisoformat(str(_now(turn, item, slots, when.field))) + timedelta(days=days)
    except ValueError:
        return
    slots[when.name] = [SlotValue(moved.isoformat(), date_label(moved, turn.language)).to_dict()]
    changed.append(when.name)


def _was_moved(turn: Turn, base: dict[str, Any], item: Any, when: Any, days: int) -> bool:
    """The pending date is its item's date moved by the amount (read now): "a week on Monday" says a week, and
    is no move of a week."""
    slots = base.get("slots") or {}
    proposed, current = ((slots.get(when.name) or [{}])[0]).get("value"), _now(turn, item, slots, when.field)
    try:
        return date.fromisoformat(str(proposed)) == date.fromisoformat(str(current)) + timedelta(days=days)
    except ValueError:
        return False


def _number_moved_again(turn: Turn, cap: CapabilityGrammar, base: dict[str, Any], slots: dict[str, Any],
                        changed: list[str]) -> None:
    """The amount a correction says replaces the request's amount of change, when the request changed the number
    by an amount (its proposal is the item's value now plus that amount: read now, never a guess)."""
    before = _increment_in(str(base.get("text") or ""))
    number = next((s for s in cap.slots if s.parse == "integer" and s.name in changed), None)
    item = next((s for s in cap.slots if s.parse == "reference" and s.type != "text" and slots.get(s.name)), None)
    said = tokens(turn.text)
    amounts = [i for i, p in enumerate(said) if p.isdigit() and i + 1 < len(said) and said[i + 1] in DAY_UNITS]
    if before is None or number is None or item is None or len(amounts) != 1 or (
            amounts[0] and said[amounts[0] - 1] in _SET_TO):
        return
    now = _now(turn, item, slots, number.field)
    proposed = ((base.get("slots") or {}).get(number.name) or [{}])[0].get("value")
    if not isinstance(now, int) or proposed != now + before:
        return
    sign = increment_sign(said, amounts[0]) or (1 if before > 0 else -1)
    new = now + sign * int(said[amounts[0]])
    slots[number.name] = [SlotValue(new, str(new)).to_dict()]


def _now(turn: Turn, item: Any, slots: dict[str, Any], field: str) -> Any:
    """The value of `field` the item in `slots` has now (read in the turn), else None."""
    target = SlotValue.from_dict((slots.get(item.name) or [{}])[0])
    if target.value is None:
        return None
    return (turn.reader.entity(str((target.entity or {}).get("type") or item.type), target.value) or {}).get(field)


def _increment_in(text: str) -> int | None:
    """The signed amount a request changes a number by ("estica a <item> 310 em 7 dias" → 7), else None."""
    parts = tokens(text)
    return next((sign * int(p) for i, p in enumerate(parts) if p.isdigit() and (sign := increment_sign(parts, i))),
                None)
