"""Conversation services: start a conversation, run a turn, settle it when its execution ends,
tell it about a review decision, and sweep expired pending state.

Every turn (and every hook) locks the conversation row, checks the version it read, applies one
transition, bumps the version and appends its events — in one transaction (§30, §35). Nothing is
kept in process memory between requests. A read plan runs in the turn's own transaction and its
outcome is the turn's reply (execution/inline.py); one that could not settle there runs after the
commit and the turn waits briefly for it, so a question gets its answer in the same response. A turn
whose execution ran inline (eager Celery) is answered with the settled outcome.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import structlog
from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from events.selectors import events_after
from events.services import event_batch, stream_open
from execution.metrics import log_context, log_rebind
from registry.selectors import registry_snapshot
from tenancy import clock
from tenancy.db import DeferredCheckFailed, coalesced_writes
from tenancy.models import Tenant

from . import lexicon, metrics, wordlists
from .grammar import grammar_for
from .llm import ModelNeeded, model_ask
from .locking import ConversationNotFound, conversation_take
from .models import Conversation
from .models import Turn as TurnRow
from .persist import conversation_save
from .runtime import handle
from .settle import settle_reads_here
from .state import state_view, ui_sanitize, ui_validate
from .statemachine import Status
from .turns import Turn, VersionConflict, reader_for


def conversation_create(*, tenant: Tenant, user: Any, session_id: str = "", language: str = "pt-BR") -> Conversation:
    now = clock.now()
    with transaction.atomic():
        conversation = Conversation.objects.create(tenant=tenant, user=user, session_id=session_id[:64],
                                                   language=language, created_at=now, updated_at=now)
        stream_open(tenant=tenant, conversation_id=conversation.pk)  # its event log, locked by each turn
    return conversation


def conversation_get(*, tenant: Tenant, user: Any, conversation_id: Any) -> Conversation:
    try:
        pk = uuid.UUID(str(conversation_id))
    except ValueError as exc:
        raise ConversationNotFound from exc
    conversation = (Conversation.objects.for_tenant(tenant).filter(pk=pk, user=user)
                    .select_related("pending_confirmation", "pending_clarification").first())
    if conversation is None:
        raise ConversationNotFound
    return conversation


def _apply_ui(turn: Turn, ui_context: Any) -> None:
    """A turn without ui_context keeps the last one; a new one is validated before anything uses it."""
    if ui_context is None:
        return
    ui = ui_sanitize(ui_context)
    selection, company = ui_validate(ui, turn.reader)
    context = dict(turn.conversation.context or {})
    previous = context.get("selection") or {}
    if selection and (previous.get("type"), str(previous.get("id"))) != (selection.get("type"),
                                                                         str(selection.get("id"))):
        context["selection_version"] = turn.version
    context["selection"] = selection
    context["filter_company"] = company
    if not selection:
        ui.pop("selection", None)
    turn.conversation.last_ui_context = ui
    turn.conversation.context = context


def conversation_turn(*, tenant: Tenant, user: Any, conversation_id: Any, kind: str = "message", text: str = "",
                      ui_context: Any = None, client_message_id: str | None = None, confirmation_id: Any = None,
                      expected_version: int | None = None, role: str | None = None) -> dict[str, Any]:
    """Run one turn and return the API.md turn response. `role`: the user's role in the tenant as this
    request's authentication just read it (the turn then does not read it again)."""
    started = time.perf_counter()
    try:
        conversation_id = uuid.UUID(str(conversation_id))
    except ValueError as exc:
        raise ConversationNotFound from exc
    with log_context(conversationId=str(conversation_id), tenantId=str(tenant.pk)) as log_ids:
        if client_message_id:
            previous = _previous_turn(tenant, user, conversation_id, client_message_id)
            if previous is not None:
                return previous
        arguments = {"tenant": tenant, "user": user, "conversation_id": conversation_id, "kind": kind, "text": text,
                     "ui_context": ui_context, "client_message_id": client_message_id,
                     "confirmation_id": confirmation_id, "expected_version": expected_version, "started": started,
                     "role": role}
        try:
            turn, result = _turn_with_model(arguments)
        except IntegrityError:
            # The same client_message_id committed concurrently: answer with that turn.
            previous = (_previous_turn(tenant, user, conversation_id, client_message_id)
                        if client_message_id else None)
            if previous is None:
                raise
            return previous
        # An in-process tool call (and an inline step task) ran the request middleware, which clears the context.
        log_rebind(log_ids, **metrics.turn_operation_ids(turn.conversation))
        if result is None:
            result = _respond(turn, started=started)
        log_rebind(log_ids)
        metrics.turn_observe(kind=kind, response=result["response"], llm_calls=turn.llm_calls,
                             latency_s=time.perf_counter() - started, events=turn.events)
        return result


MODEL_ROUNDS = 3  # asks of the model per turn when the conversation keeps moving on while it thinks


def _turn_with_model(arguments: dict[str, Any]) -> tuple[Turn, dict[str, Any] | None]:
    """Run the turn; a turn that needs the LLM rolls back, the model is asked with no lock, no
    transaction and no connection held, and the turn runs again with its answer (conversations.llm)."""
    answer = None
    for _ in range(MODEL_ROUNDS):
        try:
            return _turn_transaction(arguments, answer)
        except ModelNeeded as need:
            if not connection.in_atomic_block:
                connection.close()  # back to the pool (or closed) for as long as the model takes
            answer = model_ask(need)
    raise VersionConflict


def _turn_transaction(arguments: dict[str, Any], answer: Any) -> tuple[Turn, dict[str, Any] | None]:
    try:
        with transaction.atomic():
            return _turn_run(**arguments, model_answer=answer)
    except DeferredCheckFailed:
        # A write deferred to the turn's last statement (the plan's start) found its row moved
        # on: nothing was committed; redo the turn with every write's outcome read at once.
        with transaction.atomic():
            return _turn_run(**arguments, model_answer=answer, strict=True)


def _previous_turn(tenant: Tenant, user: Any, conversation_id: Any, client_message_id: str) -> dict[str, Any] | None:
    """The answer already given to this client_message_id in this user's conversation (a retry), or
    None. One statement: a conversation that is missing or another user's has no such turn here,
    and the turn's lock (conversation_take) answers not found for it."""
    response = (TurnRow.objects.for_tenant(tenant)
                .filter(conversation_id=conversation_id, conversation__user=user, client_message_id=client_message_id)
                .values_list("response", flat=True).first())
    return dict(response) if response is not None else None


def _turn_run(*, tenant: Tenant, user: Any, conversation_id: Any, kind: str, text: str, ui_context: Any,
              client_message_id: str | None, confirmation_id: Any, expected_version: int | None,
              started: float, role: str | None = None, strict: bool = False,
              model_answer: Any = None) -> tuple[Turn, dict[str, Any] | None]:
    """Lock, apply the turn, write state, events and the turn row. Returns the turn and its result,
    or None for a result that can only be known after the commit (`_respond`)."""
    locking = time.perf_counter()
    taken = conversation_take(tenant=tenant, user=user, conversation_id=conversation_id,
                              live=_may_confirm(kind, text))
    conversation = taken.conversation
    metrics.STATE_LATENCY.labels(op="lock").observe(time.perf_counter() - locking)
    structlog.contextvars.bind_contextvars(**metrics.turn_operation_ids(conversation))
    if expected_version is not None and expected_version != conversation.version:
        raise VersionConflict
    # A retry that raced this one past _previous_turn fails on the turn row's unique constraint at
    # the save (IntegrityError: conversation_turn answers with the first turn); no statement here.
    if conversation.status == Status.CLOSED:
        raise ConversationNotFound
    snapshot = registry_snapshot(taken.registry_version)
    grammar = grammar_for(snapshot)
    language = wordlists.detect_language(text, conversation.language) if text else conversation.language
    conversation.language = language
    turn = Turn(conversation=conversation, user=user, tenant=tenant, language=language, snapshot=snapshot,
                grammar=grammar, reader=reader_for(user=user, tenant=tenant, snapshot=snapshot, grammar=grammar),
                now=clock.now(), text=text, read_version=conversation.version, strict=strict, role=role)
    if model_answer is not None and model_answer.version == conversation.version:
        turn.model_answer = model_answer  # asked about this very state; else asked again
    if taken.plan is not None:
        turn.pending_plan, turn.pending_live = (taken.plan, taken.plan_steps), taken.live
    try:
        with coalesced_writes():
            _apply_turn(turn, kind=kind, ui_context=ui_context, confirmation_id=confirmation_id,
                        client_message_id=client_message_id, started=started, last_seq=taken.last_seq)
    finally:
        turn.reader.close()
    return turn, turn.result


def _may_confirm(kind: str, text: str) -> bool:
    """Will this turn confirm a pending plan? Then the lock's statement reads the policy live state too."""
    return kind == "confirm" or (kind == "message" and lexicon.is_confirmation(lexicon.phrase(text)))


def _apply_turn(turn: Turn, *, kind: str, ui_context: Any, confirmation_id: Any, client_message_id: str | None,
                started: float, last_seq: int | None) -> None:
    """Handle the turn and write it. Writes that need no answer (receipt, execution rows, the
    confirmation's decision) ride on the next statement that writes (tenancy.db.coalesced_writes)."""
    conversation, tenant = turn.conversation, turn.tenant
    # Every event of the turn (execution's EXECUTION_STARTED too) is written in one statement.
    with event_batch(tenant=tenant, conversation_id=conversation.pk, last_seq=last_seq) as batch:
        _apply_ui(turn, ui_context)
        running = _running_operation(conversation)
        handle(turn, kind, confirmation_id=confirmation_id)
        if turn.started_read:
            settle_reads_here(turn, running)
    conversation.last_response = turn.response
    structlog.contextvars.bind_contextvars(**metrics.turn_operation_ids(conversation))
    saving = time.perf_counter()
    turn.turn_id = str(uuid.uuid4())
    conversation.version = turn.version  # what the result reports; conversation_save checks the read one
    result = None if _settles_after_commit(turn) else _result(turn, conversation, turn.response,
                                                               batch.envelopes(), started)
    row = TurnRow(id=turn.turn_id, tenant=tenant, conversation=conversation,
                  client_message_id=client_message_id or None, kind=kind, text=turn.text[:4000],
                  response=result or {}, created_at=turn.now)
    conversation_save(conversation, read_version=turn.read_version, now=turn.now, rows=(row,))
    metrics.STATE_LATENCY.labels(op="update").observe(time.perf_counter() - saving)
    turn.result = result


def _running_operation(conversation: Conversation) -> dict[str, Any] | None:
    """The operation still executing (or being cancelled) when the turn began, if any."""
    operation = conversation.active_operation or {}
    if conversation.status in (Status.EXECUTING, Status.CANCELLING) and operation.get("execution_id"):
        return {"status": conversation.status, "operation": dict(operation)}
    return None


def _read_wait(turn: Turn) -> float:
    return float(settings.AGENT_READ_WAIT_SECONDS) if turn.started_read else 0.0


def _settles_after_commit(turn: Turn) -> bool:
    """A read plan runs in this request at the commit (execution/inline.py), and so does every
    execution when Celery is eager: their reply is read back afterwards. Anything else is answered
    with what this transaction wrote."""
    if turn.read_settled:
        return False
    return bool(turn.started_execution) and (turn.started_read or current_app.conf.task_always_eager)


def _result(turn: Turn, conversation: Conversation, response: Any, events: list[Any],
            started: float) -> dict[str, Any]:
    return {
        "turn_id": turn.turn_id, "conversation_id": str(conversation.pk),
        "status": conversation.status, "version": conversation.version, "response": response,
        "events": events,
        "metrics": {"llm_calls": turn.llm_calls, "fast_path": turn.llm_calls == 0,
                    "latency_ms": round((time.perf_counter() - started) * 1000, 2)},
    }


def _respond(turn: Turn, *, started: float) -> dict[str, Any]:
    """After the commit: wait (reads) for the execution's settled reply, then store the result."""
    conversation, response, tenant = turn.conversation, turn.response, turn.tenant
    deadline = time.monotonic() + _read_wait(turn)
    while True:
        fresh = Conversation.objects.for_tenant(tenant).filter(pk=conversation.pk).first()
        last = (fresh.last_result or {}) if fresh else {}
        if fresh is not None and last.get("execution_id") == turn.started_execution:
            conversation, response = fresh, fresh.last_response or response
            break
        if time.monotonic() >= deadline:
            conversation = fresh or conversation
            break
        time.sleep(0.02)
    # The turn's own events start at its first one (the inline execution's follow).
    events = (events_after(tenant=tenant, conversation_id=conversation.pk, after_seq=turn.appended[0].seq - 1)
              if turn.appended else [])
    result = _result(turn, conversation, response, events, started)
    TurnRow.objects.for_tenant(tenant).filter(pk=turn.turn_id).update(response=result)
    return result


def conversation_state(*, tenant: Tenant, user: Any, conversation_id: Any) -> dict[str, Any]:
    conversation = conversation_get(tenant=tenant, user=user, conversation_id=conversation_id)
    _expire_on_read(conversation)
    return state_view(conversation)


def _expire_on_read(conversation: Conversation) -> None:
    """Reads enforce TTLs too: an expired pending confirmation is never shown as pending."""
    now = clock.now()
    for pending in (conversation.pending_confirmation, conversation.pending_clarification):
        if pending is not None and pending.status == "PENDING" and pending.expires_at <= now:
            pending.status = "EXPIRED"


def conversation_events(*, tenant: Tenant, user: Any, conversation_id: Any, after: int = 0) -> list[dict[str, Any]]:
    conversation = conversation_get(tenant=tenant, user=user, conversation_id=conversation_id)
    return events_after(tenant=tenant, conversation_id=conversation.pk, after_seq=after)
