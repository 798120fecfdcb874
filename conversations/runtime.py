"""The turn pipeline (PRD-010 §3, §58): message → state → intent → references → plan → policy →
execution → next state, with the fast deterministic path first and the LLM last.

Order of interpretation, each a generic language rule (lexicon.py) or registry metadata:
control words (yes / no / cancel / undo / retry / resume) → the answer to a pending
clarification → a correction → an operational, navigation or read intent → a field question →
the LLM intent parser (when configured) → a clarification. Never an invented answer.

This module only dispatches: each kind of turn has its handler module (confirm, cancel, undo,
retry, resume, clarification, corrections, request), and the helpers they share live below them
(flow, clarify, operations), so no handler imports the dispatcher.
"""

from __future__ import annotations

import re
from typing import Any

from . import lexicon
from .another_one import another_one
from .answer_remark import (
    CLAUSES,
    answer_with_a_remark,
    changes_the_pending,
    commands,
    control_of,
    remark_only,
    stops_the_pending,
)
from .cancel import cancel
from .checked_yes import checks_then_confirms
from .clarification import candidate_words, clarification_answer, picks_by_state
from .confirm import confirm
from .corrections import correction_apply, field_correction, labelled_value
from .courtesy import courtesy
from .data_spans import data_spans, name_words
from .dates import numbers_as_digits
from .denied import meant_not_denied
from .ellipsis import ellipsis_rest
from .ellipsis_turn import asked_again_without_its_verb, ellipsis_apply, number_again, values_masked, which_ones
from .flow import allowed_capabilities, expire_pending, pending_clarification, pending_confirmation, rest
from .grammar import find_phrase
from .no_then_question import question_after_no
from .nominal import verb_of_noun
from .numbers import weeks_as_days
from .pending_value import value_for_the_pending
from .preamble import request_after_told
from .pressed import screen_words_read
from .relative import relative_change
from .relative_turn import relative_apply, swap_apply
from .request import understand
from .restated_yes import yes_to_the_same
from .resume import resume
from .self_correction import instead_left_out, said_last
from .social import social_kind
from .spelling import emoji_answer, spelled_as_meant, unshouted
from .statemachine import Status
from .supersede import on_screen, supersede
from .told import reported_request, told_aside
from .turns import Turn
from .typos import as_typed_or_meant, slipped
from .understanding import masked
from .undo import undo_request
from .value_only import bare_value, only_a_date, only_quoted


def handle(turn: Turn, kind: str, *, confirmation_id: Any = None) -> None:
    turn.resting_before = turn.conversation.status
    running = turn.resting_before in (Status.EXECUTING, Status.CANCELLING)
    if kind == "resume" and running:  # nothing to resume while it runs; the table has no EXECUTING → RESUMING
        return turn.error("BUSY", "busy")
    turn.go(Status.RESUMING if kind == "resume" else Status.UNDERSTANDING)
    expire_pending(turn)
    if kind == "confirm":
        confirm(turn, confirmation_id=confirmation_id)
    elif kind == "cancel":
        cancel(turn)
    elif kind == "undo":
        undo_request(turn)
    elif kind == "resume":
        resume(turn)
    else:
        message(turn)
    if turn.response is None:
        turn.error("UNKNOWN", "clarify.unknown")
    if turn.conversation.status in (Status.UNDERSTANDING, Status.RESUMING, Status.CORRECTING):
        rest(turn)


def message(turn: Turn) -> None:
    text = turn.text
    turn.event("MESSAGE_RECEIVED", {"text": text[:2000], "language": turn.language}, actor="user")
    if emoji_answer(text) is not None and pending_confirmation(turn) is None:  # a "👍" with nothing to answer
        return courtesy(turn, "thanks", allowed_capabilities(turn))
    # "adia 4 dyas", "a trezentos e dez": read as meant; the event keeps what was typed
    # "… para o dia 12, digo, 14": the user's last word wins (self_correction.py)
    # "clica em confirmar", "aperta o botão de <verbo> na 311": the press said is how, the rest is what (pressed.py)
    text = numbers_as_digits(_slips_read(turn, spelled_as_meant(screen_words_read(unshouted(text)))), turn.language)
    text = _EQUALS.sub(" to " if turn.language.startswith("en") else " para ", text)  # "<campo> da 310 = 20 dias"
    # "a 325 foi cancelada, exclua"; "a <pessoa> perguntou quantas …": who asked is told, not asked about
    text = turn.text = told_aside(reported_request(said_last(instead_left_out(weeks_as_days(text)), turn.language)))
    after = _after_complaint(turn, text)
    if after is not None:  # "não foi isso que eu perguntei!!! eu quero o local da 52": the request is what follows
        text = turn.text = after
    asked = _the_question(turn, text) or request_after_told(turn, text) or question_after_no(turn, text)
    if asked is not None:  # "When is <item> scheduled? I'd like to be there that day.": the question is the request
        text = turn.text = asked
    control = control_of(lexicon.phrase(text))
    words = lexicon.tokens(text)
    if control is confirm and pending_confirmation(turn) is None and (
            social := social_kind(words) or social_kind([w for w in words if w not in lexicon.CONFIRM])) is not None:
        return courtesy(turn, social, allowed_capabilities(turn))  # "perfect, thanks" with nothing to confirm: a thanks
    if control is not None:
        return control(turn)
    parts = lexicon.strip_filler(words)
    allowed = allowed_capabilities(turn)
    if _confirms_naming_it(turn, words, allowed) or checks_then_confirms(  # "that's on 310, right? ok go"
            turn, text, is_yes=lambda said: control_of(said) is confirm,
            asks_for_more=lambda said: commands(turn, said, allowed, reads=False)):
        return confirm(turn)
    if stops_the_pending(turn, words):  # "pode cancelar" with an addition on screen: that addition is not wanted
        return cancel(turn)
    if swap_apply(turn):  # "opa, 50, não 40": the proposal's value said again, corrected
        return None
    pending = pending_confirmation(turn)
    meant = meant_not_denied(text, pending.summary, turn.language) if pending is not None else None
    if meant is not None and not commands(turn, meant, allowed):  # "lucia not tiago", "quarta não, quinta"
        turn.text = " ".join(meant)  # (the denied value is read nowhere: a date is read from the text)
        return correction_apply(turn, meant)
    remarked = answer_with_a_remark(turn, text, allowed)
    if remarked is not None:  # "sim, pode concluir, já conferi tudo", "no, not yet, the team hasn't finished"
        return remarked(turn)
    social = social_kind(words)
    if social is not None:  # a courtesy never fills a slot nor confirms: answered, the rest kept
        return courtesy(turn, social, allowed)
    clarification = pending_clarification(turn)
    named = candidate_words(clarification, parts) if clarification is not None else frozenset()
    if clarification is not None and (not commands(turn, [p for p in parts if p not in named], allowed)
                                      or picks_by_state(turn, clarification, parts)):
        return clarification_answer(turn, clarification, parts)
    remainder = lexicon.correction_remainder(text)
    if remainder is not None and lexicon.closed_by_instead(text) and commands(turn, remainder, allowed, writes=False):
        remainder = None  # "open <entity> 311 instead": a look of its own, asked instead of the change on screen
    if _follow_up(turn, words, remainder if remainder is not None else parts, allowed):
        return None
    if remainder is not None and not commands(turn, remainder, allowed) and field_correction(turn, remainder, allowed):
        return None
    if remainder is not None and _correctable(turn):
        return correction_apply(turn, remainder)
    if (pending_confirmation(turn) is not None and parts and parts[0] in lexicon.CORRECTION_LEADS
            and not commands(turn, parts[1:], allowed)):
        return correction_apply(turn, parts[1:])
    if not commands(turn, parts, allowed) and labelled_value(turn, parts):  # "a <campo> é a <pessoa>"
        return None
    held = _what_about(turn, words, allowed)
    if held is not None:  # "opa, perai, e o <outra pessoa>": another value for the proposal on screen
        return correction_apply(turn, held)
    bare = bare_value(parts)
    if pending_confirmation(turn) is not None and bare and not commands(turn, bare, allowed):
        return correction_apply(turn, bare)  # "opa, 45 dias" with a proposal on screen: its value, said again
    if pending_confirmation(turn) is not None and only_a_date(turn, parts):  # "hang on, make it <weekday> instead"
        return correction_apply(turn, parts)
    if pending_confirmation(turn) is not None and only_quoted(turn, text, lambda said: commands(turn, said, allowed)):
        return correction_apply(turn, parts)  # "typo on my part - it's '<texto>'": the text of the proposal
    if value_for_the_pending(turn, parts, allowed):  # "troca pra <pessoa>" with a creation on screen
        return correction_apply(turn, parts, its_values=True)
    asked = on_screen(turn)
    understand(turn, parts, allowed)
    if yes_to_the_same(turn, asked, words):  # "sim, tenho certeza, pode apagar a 311": the same, confirmed
        return confirm(turn)
    supersede(turn, asked)


_FIRST_CLAUSE = re.compile(r"[.!?,;:]+")


def _after_complaint(turn: Turn, text: str) -> str | None:
    """What follows a complaint that opens the message ("that's not what I asked, I want …"), with nothing waiting
    for an answer (then the complaint is a no to it: control phrases); else None."""
    if pending_confirmation(turn) is not None or pending_clarification(turn) is not None:
        return None
    head = _FIRST_CLAUSE.search(text)
    if head is None or lexicon.phrase(text[:head.start()]) not in lexicon.COMPLAINTS:
        return None
    after = text[head.end():].strip()
    return after if any(c.isalpha() for c in after) else None


def _slips_read(turn: Turn, text: str) -> str:
    """"move 62 to frday": a word one slip away from one word the agent knows, read as it (typos.py); the
    tenant's names said in the message are values, never corrected."""
    if not slipped(text, turn.grammar):
        return text
    said = lexicon.tokens(text)
    named = {said[i] for i in data_spans(turn.grammar, turn.reader, said)} | name_words(turn.grammar, turn.reader, said)
    return as_typed_or_meant(text, turn.grammar, named)


_EQUALS = re.compile(r"\s*=\s*(?=[-−]?\d)")  # "= 20", "= -10": a value set (a "=" in words stays)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_QUESTION_WORDS = 3


def _the_question(turn: Turn, text: str) -> str | None:
    """Of sentences around one question, the question — when the others only tell (no number, no quote, no
    request of their own) and nothing waits for an answer; else None (the whole message is read)."""
    sentences = [s.strip() for s in _SENTENCES.split(text.strip()) if s.strip()]
    questions = [s for s in sentences if s.endswith("?")]
    if len(sentences) < 2 or len(questions) != 1 or pending_confirmation(turn) or pending_clarification(turn):
        return None
    told = " ".join(s for s in sentences if s is not questions[0])
    told_words = lexicon.tokens(told)
    if (len(lexicon.tokens(questions[0])) < _QUESTION_WORDS or any(c.isdigit() for c in told)
            or lexicon.QUOTED.search(told) or social_kind(lexicon.tokens(text)) is not None
            or commands(turn, told_words, allowed_capabilities(turn))
            or data_spans(turn.grammar, turn.reader, told_words)  # "… on the 15th? <person> can do it."
            # "preciso do número de <entidades> em <estado>. Quantas são hoje?": what is asked about is told
            or set(turn.grammar.types_named_in(told_words)) - set(turn.grammar.types_named_in(
                lexicon.tokens(questions[0])))):
        return None
    return questions[0]


def _confirms_naming_it(turn: Turn, words: list[str], allowed: set[str]) -> bool:
    """"sim, conclui" / "yes, cancel it": a confirmation followed by the pending operation's own verb
    (and at most pronouns or fillers) confirms it; anything else after the "sim" is not a plain yes."""
    pending = pending_confirmation(turn)
    if pending is None:
        return False
    head = next((n for n in range(len(words) - 1, 0, -1) if lexicon.is_confirmation(" ".join(words[:n]))), 0)
    rest = [verb_of_noun(w) or w for w in words[head:]]  # "pode seguir com a inclusão": the action by its noun
    if not head or not rest:
        return False
    cap = turn.grammar.capabilities.get(str((pending.intent or {}).get("capability")))
    # The verb's own word is enough ("cancela" for "cancelar <entidade>"): the operation is on screen.
    spans = [span for verb in (cap.verbs if cap else ()) for words in (verb.words, verb.words[:1])
             if (span := find_phrase(rest, words)) is not None]
    if not spans:
        return False
    start, end = max(spans, key=lambda span: span[1] - span[0])
    others = rest[:start] + rest[end:]
    # "Yes, I confirm the approval of <entity> 310", "pode aprovar sim, tô ciente": the pending item named again
    # (its own number, its noun) and an "I am aware" say nothing else
    own = {str(v.get("label")) for vs in ((pending.intent or {}).get("slots") or {}).values() for v in vs or ()
           if isinstance(v, dict) and v.get("entity")} | turn.grammar.noun_words
    return all(w in lexicon.FILLER or w in lexicon.ARTICLES or w in lexicon.CREATED or w in lexicon.DEMONSTRATIVES
               or w in lexicon.CONFIRM_WORDS or w in lexicon.NOW_WORDS or w in _WITH or w in own or w in _AWARE
               for w in others)


_WITH = frozenset(lexicon.tokens("com with of da do de"))
_AWARE = frozenset(lexicon.tokens("to tou estou ciente i m am aware eu confirmo confirm again novamente novo"))


def _follow_up(turn: Turn, words: list[str], parts: list[str], allowed: set[str]) -> bool:
    """A short message that only makes sense after the last one: "e a 458?" (ellipsis) or "mais 10
    dias" (a relative change of the number being discussed)."""
    # "now do the same for …": a filler before the opener ("e"/"and" are openers themselves)
    rest_words = ellipsis_rest(lexicon.after_lead_ins(words))
    rest_words = asked_again_without_its_verb(turn, rest_words) if rest_words else rest_words
    # the tenant's names are values, never a verb ("… na Delta Engenharia" is no "deleta")
    if (rest_words is not None and not commands(turn, masked(values_masked(turn, rest_words), data_spans(
            turn.grammar, turn.reader, rest_words)), allowed) and ellipsis_apply(turn, rest_words, allowed)):
        return True
    if pending_confirmation(turn) is None and number_again(turn, parts):  # "312" after "who is <field> of 310?"
        return True
    if pending_confirmation(turn) is None and another_one(turn, words, allowed):  # "and another one: '<text>'"
        return True
    if which_ones(turn, lexicon.strip_filler(lexicon.after_lead_ins(words)), allowed):  # "quais são?" after a count
        return True
    change = relative_change(parts)
    if change is None:  # "hmm, too long — reduce it by 15 days": a remark, then the change
        parts = _after_a_remark(turn, allowed)
        change = relative_change(parts) if parts else None
    return change is not None and relative_apply(turn, change, allowed, parts)


def _after_a_remark(turn: Turn, allowed: set[str]) -> list[str]:
    """The last clause's words when the clauses before it only remark (short, no number, no request)."""
    clauses = [c for c in CLAUSES.split(turn.text) if lexicon.tokens(c)]
    if len(clauses) < 2:
        return []
    told = [w for w in lexicon.tokens(" ".join(clauses[:-1])) if w not in lexicon.FILLER]
    return lexicon.strip_filler(lexicon.tokens(clauses[-1])) if remark_only(turn, told, allowed) else []


def _what_about(turn: Turn, words: list[str], allowed: set[str]) -> list[str] | None:
    """"opa, perai, e o <name>?", "hmm wait, what about <name>", "e a <name>?": after interjections and words that
    hold the turn, an ellipsis whose words fill a slot of the pending proposal with another value — the words, else
    None."""
    confirmation = pending_confirmation(turn)
    cap = turn.grammar.capabilities.get(str((confirmation.intent or {}).get("capability"))) if confirmation else None
    said = ellipsis_rest(lexicon.after_lead_ins(words)) if cap is not None else None
    if not said or commands(turn, said, allowed) or not changes_the_pending(turn, cap, said):
        return None
    return said


def _correctable(turn: Turn) -> bool:
    return bool(pending_confirmation(turn) or turn.conversation.active_intent
                or (turn.conversation.context or {}).get("last_navigation"))


__all__ = ["handle"]
