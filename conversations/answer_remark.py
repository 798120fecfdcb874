"""A yes or a no said with a remark, and the tests the dispatcher shares with it (runtime.py).

"sim, pode concluir, já conferi tudo", "no, not yet, the team hasn't finished", "não, deixa pra depois do
almoço": the answer is the longest run of control phrases at the message's start (clause by clause, or the
words of one clause when no comma stands after it); what follows is a remark when it asks for nothing — short,
no number, no correction opened, no request of its own. Hand-written: no kept library tells an answer with a
reason from a new request.
"""

from __future__ import annotations

import re
from typing import Any

from . import lexicon
from .attributes import same_number_elsewhere
from .cancel import cancel, decline
from .confirm import confirm
from .control_composed import undo_opened
from .data_spans import data_spans
from .dates import MONTH_UNITS, UNIT_DAYS
from .flow import pending_clarification, pending_confirmation
from .grammar import same_word
from .nominal import verb_of_noun
from .ordinals import ordinal_in
from .references import spoken_before
from .relative import relative_change
from .resume import resume
from .retry import retry
from .state import hints_for, situation_for
from .turns import Turn
from .understanding import Extractor, known_items, rank
from .undo import undo_request

_AMOUNT_UNITS = frozenset(UNIT_DAYS) | MONTH_UNITS  # the units an amount is said in ("… adia uma semana")
# "yes, Friday works", "sim, tá tudo certo", "yes, just like that": words that only agree with what is on screen
_AGREEING = frozenset(lexicon.tokens("works work fine good great perfect right correct just like exactly mesmo certo "
                                     "certinho tudo otimo assim jeito"))
CLAUSES = re.compile(r"[,;.!?—–]+|\s-\s")
_REMARK_WORDS = 12  # "undo it, I was given the wrong date by the client"


def answer_with_a_remark(turn: Turn, text: str, allowed: set[str]):
    """A yes or a no to the confirmation on screen (or a no to the question on screen), then a remark that
    asks for nothing: no number, no verb of another request (the pending operation's own verb aside)."""
    confirmation = pending_confirmation(turn)
    pending = confirmation or pending_clarification(turn)
    clauses = [c for clause in CLAUSES.split(text) for c in _answer_then_reason(clause) if c.strip()]
    while clauses and lexicon.apology_only(lexicon.phrase(clauses[0]).split()):
        clauses = clauses[1:]  # "ah, cancela isso, …", "I'm terribly sorry, …": an interjection or apology first
    clauses = [piece for clause in clauses for piece in _no_then_told(clause)]
    if len(clauses) < 2:
        return None
    # the answer is the longest run of clauses a control phrase makes ("stop, forget about it. I'll …")
    said, handler = 1, control_of(lexicon.phrase(clauses[0]))
    for n in range(2, len(clauses)):
        longer = control_of(lexicon.phrase(" ".join(clauses[:n])))
        if longer is not None:
            said, handler = n, longer
    if handler is None:  # "that was the wrong one; could you undo that?": the remark may come first
        return _remark_then_answer(turn, clauses, allowed, confirmation)
    # "no, on second thought better not, the auditors…": further clauses that say the same answer again
    while said < len(clauses) - 1 and handler is not None and control_of(lexicon.phrase(clauses[said])) in (
            (handler,) if handler is confirm else (decline, cancel)):
        said += 1
    if pending is None:  # "desfaz isso, por favor, foi engano meu": an undo of what ran, then a remark
        told = [w for w in lexicon.tokens(" ".join(clauses[said:])) if w not in lexicon.FILLER]
        if handler is not undo_request:  # "wait, that was a mistake, take it back": a hold first, the undo last
            return _remark_then_answer(turn, clauses, allowed, confirmation)
        return undo_request if remark_only(turn, told, allowed) else None
    after = lexicon.tokens(" ".join(clauses[said:]))
    if (set(lexicon.tokens(" ".join(clauses[:said]))) <= lexicon.HOLDS or (handler is confirm and after[:1] in (
            ["mas"], ["but"]))) and lexicon.asks(after, text):
        return None  # "pera, quantos dias ela tem hoje?", "sim, mas antes: …?": a question — asked, the proposal kept
    # "cancela isso, falei sem pensar" drops a question on screen too; only a confirmation is confirmed
    if handler not in ((confirm, decline, cancel) if confirmation is not None else (decline, cancel)):
        return None
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability")))
    own = {w for verb in (cap.verbs if cap else ()) for w in verb.words}
    # the pending operation's own verb is no request of its own after a yes, nor when negated ("não, não adia",
    # "cancela não"), nor after a no that changes nothing ("hold on — withdraw that request"); after a no with a
    # value it asks for it again, changed ("melhor não, só adia uma semana …")
    words, said_after = lexicon.tokens(text), lexicon.tokens(" ".join(clauses[said:]))
    negated = {w for i, w in enumerate(words) if words[i - 1:i] and words[i - 1] in lexicon.NEGATIONS
               or words[i + 1:i + 2] and words[i + 1] in lexicon.NEGATIONS}
    changed = handler is not confirm and (any(c.isdigit() for w in said_after for c in w)
                                          or bool(set(said_after) & _AMOUNT_UNITS))  # "… só adia uma semana"
    rest = [w for w in said_after if w not in lexicon.CONFIRM_WORDS
            and w not in lexicon.NOW_WORDS and w not in lexicon.FILLER and w not in lexicon.NEGATIONS
            and not (handler is confirm and w in _AGREEING)
            and not ((not changed or w in negated) and any(same_word(w, v) for v in own))]
    if handler is confirm and cap is not None:
        rest = _without_what_it_restates(turn, cap, rest)  # "sim, 20 dias mesmo": the value on screen, said again
    if (not remark_only(turn, rest, allowed) or _names_a_type(turn, rest)
            # ("não, o dobro": a factor, also when a verb of the pending operation says it — "dobra a <campo>")
            or relative_change(lexicon.strip_filler(lexicon.tokens(" ".join(clauses[said:])))) is not None
            or (_places_to_pick(turn) and ordinal_in(rest) is not None)  # "no, the third", "no wait, the second one"
            # a name after a yes may say which other item was meant; after a no, nothing runs anyway
            or (handler is confirm and data_spans(turn.grammar, turn.reader, rest))
            or (handler is confirm and cap is not None and another_action(turn, cap, rest, allowed))
            # (what the user will do, and with whom, is told: "depois eu vejo isso com <pessoa>")
            or (cap is not None and not _told_by_me(rest)
                and changes_the_pending(turn, cap, rest, free_text=handler is not cancel))):
        return None  # "Não. Quero <outro nome>", "no, <entity> 311": a correction, not a remark
    return handler


def _remark_then_answer(turn: Turn, clauses: list[str], allowed: set[str], confirmation: Any):
    """A remark that asks for nothing, then the answer in the last clauses: an undo of what ran when nothing is
    pending, a no to what is pending — never a yes (words before it may say another item or value: a correction)."""
    at, handler = next(((k, h) for k in range(1, len(clauses))
                        if (h := control_of(lexicon.phrase(" ".join(clauses[k:])))) is not None), (0, None))
    if handler is None:
        return None
    told = [w for w in lexicon.tokens(" ".join(clauses[:at])) if w not in lexicon.FILLER]
    fits = (undo_request,) if confirmation is None and pending_clarification(turn) is None else (decline, cancel)
    return handler if handler in fits and remark_only(turn, told, allowed) else None


_HEAD_WORDS = 8  # the longest no or stop said before its reason ("acho melhor não, deixa quieto")


def _no_then_told(clause: str) -> list[str]:
    """"melhor não deixa quieto por enquanto", "deixa pra depois do almoço": a no or a stop at a clause's start,
    then words no comma set apart — two clauses, as if one stood there. A yes is never split off: what follows
    it may change what is confirmed."""
    if control_of(lexicon.phrase(clause)) is not None:
        return [clause]
    words = clause.split()
    for n in range(min(len(words) - 1, _HEAD_WORDS), 0, -1):
        if control_of(lexicon.phrase(" ".join(words[:n]))) in (decline, cancel):
            return [" ".join(words[:n]), " ".join(words[n:])]
    return [clause]


_REASON = re.compile(r"\s(?:que|" + "|".join(sorted(lexicon.BECAUSE)) + r")\s", re.IGNORECASE)  # ("as": an article)


def _answer_then_reason(clause: str) -> list[str]:
    """"deixa como está que o <fulano> ainda vai usar": an answer, then why — two clauses, as if a comma
    stood before the reason word."""
    match = _REASON.search(clause)
    if match is None or control_of(lexicon.phrase(clause[:match.start()])) is None:
        return [clause]
    return [clause[:match.start()], clause[match.end():]]


def remark_only(turn: Turn, rest: list[str], allowed: set[str]) -> bool:
    """Words after an answer that ask for nothing: short, no number, no correction opened, no request of their
    own."""
    return (len(rest) <= _REMARK_WORDS and not any(any(c.isdigit() for c in w) for w in rest)
            and not _opens_correction(rest) and not commands(turn, _what_i_did_aside(rest), allowed, reads=False))


def _what_i_did_aside(rest: list[str]) -> list[str]:
    """A remark's words without the verbs that tell what the user did or will do ("coloquei na <entidade> errada",
    "I added it to the wrong one", "depois eu vejo isso com <pessoa>", "I'll sort it out"): a verb in the first
    person asks for nothing."""
    return [w for i, w in enumerate(rest) if not ((len(w) >= 5 and w.endswith("ei"))
                                                  or (w.endswith("ed") and i and rest[i - 1] in ("i", "we"))
                                                  or (i and rest[i - 1] in _I_WILL))]


_I_WILL = frozenset(("eu", "ll", "nos", "gente"))  # "eu vejo", "I'll check", "a gente resolve"


def _told_by_me(rest: list[str]) -> bool:
    return any(rest[i - 1] in _I_WILL for i in range(1, len(rest)))


_CORRECTION_OPENERS = (("quero",), ("queria",), ("prefiro",), ("era",), ("seria",), ("e",), ("i", "want"),
                       ("i", "meant"), ("it", "s"), ("it", "is"), ("instead",), ("want",), ("quis",), ("eu", "quis"),
                       ("quer", "dizer"), ("i", "mean"))


def _opens_correction(rest: list[str]) -> bool:
    """"não, quero a outra", "no, I want the other one": the remark opens a correction. Its words are the
    correction leads at its start only — "no thanks, I'll sort it out later" says "I" and "it" and
    corrects nothing."""
    opened = next((o for o in _CORRECTION_OPENERS if tuple(rest[:len(o)]) == o), None)
    if opened is not None and rest[len(opened):len(opened) + 1] and rest[len(opened)].startswith(_KEEP):
        return False  # "não, obrigada. Pensando melhor, prefiro mantê-la": wants it kept, corrects nothing
    return opened is not None or (bool(rest) and rest[-1] == "instead")


_KEEP = ("mant", "deix", "keep", "leave")  # "prefiro mantê-la/deixar assim", "I want to keep it"


def changes_the_pending(turn: Turn, cap: Any, rest: list[str], *, free_text: bool = True) -> bool:
    """Does the remark fill a slot of the pending operation with another value ("não, espaço confinado")?
    A name that only points at the pending item again ("I'll sort it out with <the person on it>") does not.
    `free_text=False` (after "cancela"): a free-text slot would take any remark ("falei sem pensar"), so
    only the other slots count."""
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=" ".join(rest), language=turn.language)
    pending = ((pending_confirmation(turn) or pending_clarification(turn)).intent or {}).get("slots") or {}
    extraction = extractor.extract(cap, rest, use_context=False, parents=known_items(cap, pending))
    if any(_same_number_elsewhere(turn, slot, rest, pending) for slot in cap.slots if slot.parse == "reference"):
        return True  # "no, the <name> one": that other item with the same number
    if any(spoken_before(situation_for(turn.conversation), slot.type, rest, current[0].get("value")) is not None
           for slot in cap.slots if slot.parse == "reference" and (current := pending.get(slot.name))):
        return True  # "não, na anterior": the item spoken of before the one on screen
    texts = set() if free_text else {s.name for s in cap.slots if s.type == "text" and s.parse == "text"}
    return any([str(v.value) for v in extraction.values[name]] != [str(v.get("value")) for v in pending.get(name) or ()]
               for name in extraction.from_text if name not in texts)


def _names_a_type(turn: Turn, rest: list[str]) -> bool:
    """The remark names an entity type — a correction's "no, the <entity> …" — unless a demonstrative points it at
    what is on screen ("não quero esse <filho> nela", "I don't want this <child>")."""
    return any(not (start and rest[start - 1] in lexicon.DEMONSTRATIVES)
               for start, _ in turn.grammar.types_named_in(rest).values())


def _without_what_it_restates(turn: Turn, cap: Any, rest: list[str]) -> list[str]:
    """The remark's words without the pending operation's own values said again (each one the same as on screen);
    the words as they were when any value differs or none is said."""
    extractor = Extractor(grammar=turn.grammar, reader=turn.reader, situation=situation_for(turn.conversation),
                          text=" ".join(rest), language=turn.language)
    extraction = extractor.extract(cap, rest, use_context=False)
    if not extraction.from_text or changes_the_pending(turn, cap, rest):
        return rest
    return [w for i, w in enumerate(rest) if i not in extraction.used and w not in lexicon.DAY_UNITS]


def another_action(turn: Turn, cap: Any, rest: list[str], allowed: set[str]) -> bool:
    """"sim, confirma a aprovação" with a change of <campo> on screen: the words after the yes name another write
    (by its verb or its noun) — not a yes to what is on screen."""
    said = [verb_of_noun(w) or w for w in _what_i_did_aside(rest)]  # ("… que eu autorizo": told)
    ranked = rank(turn.grammar, said, allowed, hints_for(turn.conversation, with_topic=False))
    return (bool(ranked) and ranked[0].verb_span is not None and ranked[0].cap.kind == "write"
            and not any(r.cap.id == cap.id for r in ranked if r.score >= ranked[0].score))


def _same_number_elsewhere(turn: Turn, slot: Any, rest: list[str], pending: dict[str, Any]) -> bool:
    current = (pending.get(slot.name) or [None])[0]
    return isinstance(current, dict) and same_number_elsewhere(
        turn.reader, slot, rest, current.get("value"), str(current.get("label") or "")) is not None


def control_of(phrase: str):
    """The handler of a control phrase ("sim", "não", "cancela", "desfaça", "tente de novo", "continue")."""
    if lexicon.is_confirmation(phrase) or lexicon.run_of(lexicon.CONFIRM, phrase):
        return confirm
    for words, handler in ((lexicon.DECLINE, decline), (lexicon.CANCEL, cancel), (lexicon.UNDO, undo_request),
                           (lexicon.RETRY, retry), (lexicon.RESUME, resume)):
        if phrase in words or lexicon.run_of(words, phrase):
            return handler
    if undo_opened(phrase) and not _another_control_after(phrase):
        return undo_request
    return {"confirm": confirm, "decline": decline, "cancel": cancel, "undo": undo_request, "retry": retry,
            "resume": resume}.get(lexicon.control_run(phrase) or "")


def _places_to_pick(turn: Turn) -> bool:
    """A list was shown, or the conversation spoke of items one after another: an ordinal may pick one (ordinals.py)."""
    context = turn.conversation.context or {}
    return bool(context.get("listed")) or len(context.get("recent_entities") or []) > 1


def _another_control_after(phrase: str) -> bool:
    """"undo that, no", "desfaz, tenta de novo": the undo's words end in another control phrase — no undo alone."""
    said = phrase.split()
    return any(" ".join(said[i:]) in words for i in range(1, len(said))
               for words in (lexicon.DECLINE, lexicon.CANCEL, lexicon.RETRY, lexicon.RESUME))  # (a yes asks the undo)


def commands(turn: Turn, parts: list[str], allowed: set[str], *, reads: bool = True, writes: bool = True) -> bool:
    """Does the message start a new request (a verb of a capability near its start)? `reads=False`:
    only a request to act — "já conferi tudo" after a yes names a read verb but asks for nothing. `writes=False`:
    only a request to look (a read or a navigation)."""
    ranked = rank(turn.grammar, parts, allowed, hints_for(turn.conversation, with_topic=False))
    return (bool(ranked) and ranked[0].verb_span is not None and ranked[0].verb_span[0] <= 2
            and (reads or ranked[0].cap.kind != "read") and (writes or ranked[0].cap.kind != "write"))


def stops_the_pending(turn: Turn, words: list[str]) -> bool:
    """"pode cancelar", "can you cancel?": a stop asked politely with a proposal on screen, naming nothing — the
    request on screen is cancelled, never a cancel of its item proposed in its place (a proposal that cancels
    the item, named by its own verb, is confirmed so before: runtime._confirms_naming_it)."""
    asked = lexicon.asked_to(lexicon.strip_filler(words)) if pending_confirmation(turn) is not None else None
    return asked is not None and control_of(" ".join(asked)) is cancel
