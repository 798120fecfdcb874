"""Understanding accuracy: the labelled corpus played through the real turn pipeline (issue #15, point 6).

Every case of bench/corpus/{tuning,heldout}/*.yaml (format and grading: _understanding_grading.py)
is played in-process through the public REST API (DRF's APIClient, a user token of the world's
tenant, Celery tasks inline), each in a new conversation of the world built once from
bench/corpus/world.yaml through test control (demo.testcontrol). Its context turns run first, then
the graded turn, whose response, proposed plan, execution and world facts before/after are graded.
The world is rebuilt whenever a case changed it, so cases are independent.

The LLM is configured: a fake OpenAI-compatible server on a loopback socket (tests/fakes) that
answers every request with "I don't know" (`{"capability": null}`) and counts the calls, so
`llm_free_share` is the share of graded turns answered with `metrics.llm_calls == 0`.

Output (BENCH.md): one JSON line — p50/p95/p99 per graded turn (ms, wall clock of the request),
`accuracy` overall, `accuracy_tuning`, `accuracy_heldout`, `safety`, `llm_free_share`,
`per_category`, `per_tag`, `targets_met`. Failing cases go to stderr (utterance, expected, got).

    DATABASE_URL=postgres://…/sst_bench_u REDIS_URL=redis://…/11 .venv/bin/python bench/understanding.py \
        [--only ID-PREFIX] [--split tuning|heldout] [--cases DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LOG_LEVEL", "WARNING")

from _common import django_setup, emit, summarize  # noqa: E402
from _understanding_grading import (  # noqa: E402
    Case,
    Grade,
    Observed,
    Write,
    accuracy_report,
    corpus_load,
    corpus_problems,
    grade,
    share,
    silent_value_proposal,
    world_load,
)

NAME = "understanding"
TARGETS = {"accuracy": 0.97, "accuracy_heldout": 0.97, "safety": 1.0, "llm_free_share": 0.95}
ENTITY_TYPES = {"permit": "workPermit", "inspection": "inspection"}
# Plan step input names read back as labels (ids of the world → numbers, names, descriptions).
EMPLOYEE_KEYS = {"responsible", "inspector", "employee", "employee_id", "worker"}


class World:
    """The bench's world in a scenario tenant, with the id → label maps the grader reads plans with."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.children: dict[str, dict[int, Any]] = {"component_id": {}, "finding_id": {}}
        self.created = None
        self.pristine = self.last_digest = ""

    def build(self) -> None:
        from demo.testcontrol.services import sst_digest, world_create
        from tenancy.models import Tenant

        self.drop()
        self.created = world_create(world=self.spec)
        self.tenant = Tenant.objects.get(pk=self.created.tenant)
        self.tokens = {role: user["token"] for role, user in self.created.users.items()}
        self.pristine = self.last_digest = sst_digest(tenant=self.tenant)
        self.ids: dict[tuple[str, str, str | None], int] = {}
        self.builds = getattr(self, "builds", 0) + 1

    def drop(self) -> None:
        from demo.testcontrol.services import world_delete

        if self.created is not None:
            world_delete(tenant_id=self.created.tenant)
            self.created = None

    def digest(self) -> str:
        from demo.testcontrol.services import sst_digest

        self.last_digest = sst_digest(tenant=self.tenant)
        return self.last_digest

    def facts(self) -> dict[str, Any]:
        from demo.testcontrol.services import world_facts

        return world_facts(tenant_id=self.created.tenant)

    def entity_id(self, kind: str, number: str, company: str | None = None) -> int:
        key = (kind, str(number), company)
        if key not in self.ids:
            rows = [r for r in self.facts()[f"{kind}s"] if r["number"] == str(number)
                    and (company is None or r["company"] == company)]
            if len(rows) != 1:
                raise LookupError(f"{kind} {number} ({company}): {len(rows)} rows")
            self.ids[key] = rows[0]["id"]
        return self.ids[key]

    # Reading a plan step's input as labels.
    def remember_children(self) -> None:
        """Labels of the permits' components and the inspections' findings before a turn (untimed), and of
        the permits and inspections themselves: an item the graded turn deletes is named as it was."""
        from sst.models import Finding, Inspection, PermitComponent, WorkPermit

        t = self.tenant
        self.children = {
            "component_id": dict(PermitComponent.objects.for_tenant(t).values_list("pk", "component_type__name")),
            "finding_id": dict(Finding.objects.for_tenant(t).values_list("pk", "description")),
            "permit_id": {pk: {"permit": number, "company": company} for pk, number, company in
                          WorkPermit.objects.for_tenant(t).values_list("pk", "number", "company__name")},
            "inspection_id": {pk: {"inspection": number, "company": company} for pk, number, company in
                              Inspection.objects.for_tenant(t).values_list("pk", "number", "company__name")}}

    def write_of(self, capability: str, step_input: dict[str, Any]) -> Write:
        from sst.models import Company, ComponentType, Employee, Finding, Inspection, PermitComponent, WorkPermit

        t = self.tenant
        target, slots = None, {}
        for key, value in step_input.items():
            # an executor-time reference of a composite's step ("${steps.read.result.company.id}"): no value yet
            if key == "expected_revision" or (isinstance(value, str) and value.startswith("${")):
                continue
            if key in ("permit_id", "inspection_id") and self.children.get(key) and value not in self.children[key] \
                    and isinstance(value, int):
                target = None  # an item this turn's own plan made (a copy's later steps): no target of the world's
            elif key == "permit_id":
                permit = WorkPermit.objects.for_tenant(t).select_related("company").filter(pk=value).first()
                target = ({"permit": permit.number, "company": permit.company.name} if permit
                          else self.children.get(key, {}).get(value) or {"permit": f"?{value}"})
            elif key == "inspection_id":
                found = Inspection.objects.for_tenant(t).select_related("company").filter(pk=value).first()
                target = ({"inspection": found.number, "company": found.company.name} if found
                          else self.children.get(key, {}).get(value) or {"inspection": f"?{value}"})
            elif key in EMPLOYEE_KEYS or key == "workers":
                ids = value if isinstance(value, list) else [value]
                names = [e.name for e in Employee.objects.for_tenant(t).filter(pk__in=ids)]
                slots[key.removesuffix("_id")] = names if isinstance(value, list) else (names[0] if names else value)
            elif key == "company":
                company = Company.objects.for_tenant(t).filter(pk=value).first()
                slots[key] = company.name if company else value
            elif key in ("component", "components"):
                keys = value if isinstance(value, list) else [value]
                names = [c.name for c in ComponentType.objects.for_tenant(t).filter(key__in=keys)]
                slots[key] = names if isinstance(value, list) else (names[0] if names else value)
            elif key == "component_id":
                row = PermitComponent.objects.for_tenant(t).select_related("component_type").filter(pk=value).first()
                kind = row.component_type if row else ComponentType.objects.for_tenant(t).filter(pk=value).first()
                removed = self.children[key].get(value)  # the turn removed it: named as it was before
                slots["component"] = removed or (kind.name if kind else value)
            elif key == "finding_id":
                finding = Finding.objects.for_tenant(t).filter(pk=value).first()
                slots["finding"] = finding.description if finding else self.children[key].get(value, value)
            else:
                slots[key] = value
        return Write(capability=capability, target=target, slots=slots)


class FakeLLM:
    """The fake chat-completions server of the tests, answering "I don't know" and counting calls."""

    def __enter__(self) -> FakeLLM:
        from tests.fakes.llm_server import FakeLLMServer

        self.server = FakeLLMServer().start()
        self.server.content = json.dumps({"capability": None})
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.stop()

    @property
    def calls(self) -> int:
        return len(self.server.requests)


class Player:
    def __init__(self, world: World) -> None:
        from rest_framework.test import APIClient

        self.world = world
        self.client_class = APIClient

    def _client(self, role: str):
        client = self.client_class()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.world.tokens[role]}")
        return client

    def _ui(self, ui: dict[str, Any] | None) -> dict[str, Any] | None:
        if not ui:
            return None
        context: dict[str, Any] = {"applicationId": "sst"}
        selection = ui.get("selection")
        if selection:
            kind = "permit" if "permit" in selection else "inspection"
            entity_id = self.world.entity_id(kind, selection[kind], selection.get("company"))
            context["selection"] = {"entityType": ENTITY_TYPES[kind], "entityId": str(entity_id)}
            context["page"] = {"id": "work-permits" if kind == "permit" else "inspections"}
            context["route"] = f"/{context['page']['id']}/{entity_id}"
        if "focus" in ui:
            context["focus"] = dict(ui["focus"])
        return context

    def _send(self, client, conversation: str, turn: Any):
        if isinstance(turn, str):
            turn = {"say": turn}
        if "action" in turn:
            body: dict[str, Any] = {}
            if turn["action"] == "confirm":
                state = client.get(f"/agent/conversations/{conversation}").json()
                pending = state.get("pending_confirmation") or state.get("confirmation") or {}
                body = {"confirmation_id": pending.get("id")}
            return client.post(f"/agent/conversations/{conversation}/{turn['action']}", body, format="json")
        body = {"text": turn["say"]}
        ui = self._ui(turn.get("ui"))
        if ui is not None:
            body["ui_context"] = ui
        return client.post(f"/agent/conversations/{conversation}/messages", body, format="json")

    def play(self, case: Case) -> tuple[Observed, float]:
        """Context turns, then the graded turn, observed. The world is rebuilt first if the last case changed it."""
        if self.world.last_digest != self.world.pristine:
            self.world.build()
        client = self._client(case.data.get("user", "supervisor"))
        conversation = client.post("/agent/conversations", {"language": "en" if case.data["lang"] == "en" else "pt-BR"},
                                   format="json").json()["id"]
        for turn in case.data.get("context", []):
            self._send(client, conversation, turn)
        # Facts are read only when the grading needs them (they cost more than a turn).
        expect = case.expect
        # (a move's expected date is read against the item's date: it may already be that date today)
        needs_before = "scheduled_for" in (expect.get("slots") or {})
        facts_before = self.world.facts() if needs_before else {}
        digest_before = self.world.digest() if case.data.get("context") else self.world.pristine
        self.world.remember_children()  # a child the graded turn removes is still named by its label
        started = time.perf_counter()
        response = self._send(client, conversation, {"say": case.text, "ui": case.data.get("ui")})
        elapsed = (time.perf_counter() - started) * 1000
        obs = self.observe(response, facts_before, digest_before, with_facts="world" in expect)
        return obs, elapsed

    def observe(self, response, facts_before: dict[str, Any], digest_before: str, *, with_facts: bool) -> Observed:
        from planning.models import PlanStep

        obs = Observed(http_status=response.status_code, facts_before=facts_before)
        body = _json(response)
        obs.facts_after = self.world.facts() if with_facts else {}
        obs.world_changed = self.world.digest() != digest_before
        if response.status_code != 200:
            obs.texts = [json.dumps(body, ensure_ascii=False)]
            return obs
        reply = body.get("response") or {}
        obs.type, obs.template, obs.status = reply.get("type"), reply.get("template"), body.get("status")
        obs.message = reply.get("message") or ""
        obs.texts = list(_strings(reply))
        obs.llm_calls = int((body.get("metrics") or {}).get("llm_calls") or 0)
        nav = reply.get("navigation")
        if isinstance(nav, dict) and isinstance(nav.get("entity"), dict):
            entity = nav["entity"]
            kind = {v: k for k, v in ENTITY_TYPES.items()}.get(entity.get("type"), entity.get("type"))
            obs.navigation = {kind: entity.get("label"), "company": entity.get("company"), "tab": nav.get("tab")}
        clarification = reply.get("clarification")
        if isinstance(clarification, dict):
            obs.candidates = len(clarification.get("candidates") or [])
        confirmation = reply.get("confirmation")
        if isinstance(confirmation, dict) and confirmation.get("plan_id"):
            steps = PlanStep.objects.for_tenant(self.world.tenant).filter(
                plan_id=confirmation["plan_id"], kind="write").order_by("position")
            obs.proposed = self._composite(confirmation["plan_id"], steps) + [
                self.world.write_of(s.capability_id, s.input) for s in steps]
        execution = reply.get("execution")
        if isinstance(execution, dict) and execution.get("id"):
            obs.executed = self._executed(execution["id"])
        return obs

    def _composite(self, plan_id: str, steps) -> list[Write]:
        """A composite plan (a clone…) read as its intent: the composite's name, the targets it was pinned to
        and its slots — its steps' inputs refer to each other and say neither."""
        from planning.models import ExecutionPlan

        plan = ExecutionPlan.objects.for_tenant(self.world.tenant).filter(pk=plan_id).first()
        if plan is None or plan.template in {s.capability_id for s in steps}:
            return []
        intent = plan.intent or {}
        step_input = {f"{role}_id": t.get("id") for role, t in (intent.get("targets") or {}).items()
                      if isinstance(t, dict) and role in ENTITY_TYPES}
        step_input.update({k: v for k, v in (intent.get("slots") or {}).items() if k not in step_input})
        return [self.world.write_of(plan.template, step_input)]

    def _executed(self, execution_id: str) -> list[Write]:
        """The write steps the execution completed (reads are not writes), with the input they ran with."""
        from execution.models import Execution, StepRun
        from planning.models import PlanStep

        execution = Execution.objects.for_tenant(self.world.tenant).filter(pk=execution_id).first()
        if execution is None:
            return []
        steps = {s.step_id: s for s in PlanStep.objects.for_tenant(self.world.tenant).filter(
            plan_id=execution.plan_id, kind="write")}
        runs = StepRun.objects.for_tenant(self.world.tenant).filter(execution=execution, status="completed")
        done = [self.world.write_of(steps[r.step_id].capability_id, r.input or steps[r.step_id].input)
                for r in runs if r.step_id in steps]
        # a composite that ran (a copy…) is read as its intent too, as its proposal is (_composite)
        return (self._composite(str(execution.plan_id), list(steps.values())) if done else []) + done


def _json(response) -> Any:
    try:
        return response.json()
    except (ValueError, TypeError):
        return {}


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        # not ids: a uuid may hold "312" by chance ("… says '312'" once failed a case that never said it)
        for key, item in value.items():
            if key != "id" and not str(key).endswith("_id"):
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _failure_line(case: Case, result: Grade) -> str:
    return json.dumps({"id": case.id, "split": case.split, "say": case.data["say"][:200],
                       "context": case.data.get("context", []), "expected": case.expect,
                       "got": result.got, "why": result.reasons}, ensure_ascii=False, default=str)


def failure_kind(case: Case, result: Grade) -> str:
    """A short label to count failures by: the case's kind, the first failed category and how."""
    wrong = [c for c, ok in result.categories.items() if not ok]
    first = wrong[0] if wrong else "?"
    if first == "intent":
        how = f"{result.got['reply']} instead of {'/'.join(case.replies)}"
    elif first == "safety":
        how = next((r for r in result.reasons if r.startswith("UNSAFE")), "")[:80]
    else:
        how = (result.reasons[0].split(" (")[0].split("=")[0] if result.reasons else "")[:60]
    return f"{case.data['kind']}: {first}: {how}"


def run(cases: list[Case], world_spec: dict[str, Any]) -> dict[str, Any]:
    from django.test import override_settings

    from config.celery import app as celery_app
    from execution.runtime import sessions_close
    from sst.clock import today

    world = World(world_spec)
    with FakeLLM() as llm, override_settings(
            LLM_BASE_URL=None, AGENT_RATE_USER_PER_MINUTE=10**7, AGENT_RATE_TENANT_PER_MINUTE=10**7,
            CELERY_TASK_ALWAYS_EAGER=True, AGENT_READ_WAIT_SECONDS=0):
        celery_app.conf.task_always_eager = True
        with override_settings(LLM_BASE_URL=llm.server.url, LLM_API_KEY="bench", LLM_MODEL="fake-model",
                               LLM_TIMEOUT_SECONDS=5):
            world.build()
            player = Player(world)
            grades: dict[str, Grade] = {}
            samples: list[float] = []
            llm_free: list[bool] = []
            silent: list[str] = []
            try:
                # Warm-up (untimed, ungraded): caches of the registry grammar and first connections.
                player.play(cases[0])
                for case in cases:
                    obs, ms = player.play(case)
                    samples.append(ms)
                    llm_free.append(obs.llm_calls == 0)
                    grades[case.id] = grade(case, obs, today=today())
                    if silent_value_proposal(case, obs):
                        silent.append(case.id)
            finally:
                world.drop()
                sessions_close()
    return {"grades": grades, "samples": samples, "llm_free": llm_free, "llm_calls_total": llm.calls,
            "silent_value_proposals": silent,
            "world_builds": world.builds}


def _manifest_current() -> None:
    """The capabilities/*.yaml on disk, active: the bench measures the manifest as it is now (test
    control seeds the registry only when it is empty)."""
    import io

    from demo.seeding import registry as registry_seeding

    registry_seeding.seed(stdout=io.StringIO())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="play only the cases whose id starts with this")
    parser.add_argument("--split", choices=["tuning", "heldout"])
    parser.add_argument("--cases", type=Path, help="a folder with tuning/ and heldout/ case files to play instead "
                                                    "(a probe of new phrasings, on the corpus's world)")
    args = parser.parse_args()

    cases, world_spec = corpus_load(args.cases) if args.cases else corpus_load(), world_load()
    problems = corpus_problems(cases, world_spec)
    if problems:
        sys.exit("invalid corpus:\n" + "\n".join(problems))
    if args.only:
        cases = [c for c in cases if c.id.startswith(args.only)]
    if args.split:
        cases = [c for c in cases if c.split == args.split]
    if not cases:
        sys.exit("no cases selected")

    django_setup()
    _manifest_current()
    started = time.monotonic()
    outcome = run(cases, world_spec)
    grades: dict[str, Grade] = outcome["grades"]

    failures = Counter()
    for case in cases:
        result = grades[case.id]
        if not result.correct:
            failures[failure_kind(case, result)] += 1
            print(_failure_line(case, result), file=sys.stderr)

    overall = accuracy_report(cases, grades)
    tuning = accuracy_report([c for c in cases if c.split == "tuning"], grades)
    heldout = accuracy_report([c for c in cases if c.split == "heldout"], grades)
    result = {
        **summarize(outcome["samples"]),
        "accuracy": overall["accuracy"],
        "accuracy_tuning": tuning["accuracy"],
        "accuracy_heldout": heldout["accuracy"],
        "safety": overall["per_category"]["safety"],
        "safety_heldout": heldout["per_category"]["safety"],
        "llm_free_share": share(outcome["llm_free"]),
        "llm_calls_total": outcome["llm_calls_total"],
        "silent_value_proposals": len(outcome["silent_value_proposals"]),
        "per_category": overall["per_category"],
        "per_category_heldout": heldout["per_category"],
        "per_tag": overall["per_tag"],
        "cases": {"total": len(cases), "tuning": tuning["cases"], "heldout": heldout["cases"]},
        "failures": len([c for c in cases if not grades[c.id].correct]),
        "top_failure_kinds": dict(failures.most_common(10)),
        "world_builds": outcome["world_builds"],
        "seconds": round(time.monotonic() - started, 1),
    }
    result["targets_met"] = {key: (result[key] is not None and result[key] >= goal) for key, goal in TARGETS.items()}
    emit(NAME, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
