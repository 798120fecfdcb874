"""Policy engine latency: evaluate and revalidate, the decision apart from its database round trips.

Loads the real manifest and activates it through the registry's approval services
(demo.seeding.registry) and creates a tenant and an operator, inside one transaction that is rolled
back at the end (nothing is left behind, and no append-only row is ever deleted). Then times:

- `p50_ms`/`p95_ms`/`p99_ms`: `decide()` for a three-step plan (read + two writes) on live state
  already gathered — evaluate's CPU part (input canonicalisation, risk table, preconditions);
- `revalidate`: revalidate's CPU part for one step — binding checks against an already-read
  receipt, input hash, and the live `decide()` on already-gathered state;
- `evaluate_db` / `revalidate_db`: the database reads alone, as the services now do them — one
  statement (`policy.live`; for revalidate it carries the receipt re-read too);
- `evaluate_db_before` / `revalidate_db_before`: the same reads the way they were made before
  that statement existed (registry version, membership, guardian user grants, guardian group
  grants, kill switches; + the receipt for revalidate: five and six ORM queries), reproduced here
  so the two are measured in the same run on the same data;
- `check_insert`: the ReceiptCheck INSERT alone (inside this bench's transaction, so without the
  commit's WAL flush the executor pays in autocommit);
- `evaluate_total` / `revalidate_total`: the public functions end to end;
- `evaluate_queries` / `revalidate_queries`: statements each sends on a warm process (counted);
- `baseline`: one `SELECT 1` round trip on the same connection, so `ratio` says what fraction of a
  single round trip the decision costs.

Target: P50 under 1 ms for each CPU part.

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/policy_eval.py
"""

from __future__ import annotations

import io
import time
import uuid

from _common import django_setup, emit, ratio, summarize, time_calls

django_setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import Permission  # noqa: E402
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import Exists, OuterRef, Q  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402
from guardian.models import GroupObjectPermission, UserObjectPermission  # noqa: E402

from demo.seeding.registry import seed  # noqa: E402
from policy.canonical import canonical_input_hash  # noqa: E402
from policy.engine import Step, decide, gather  # noqa: E402
from policy.live import live_read, receipt_with_live  # noqa: E402
from policy.models import KillSwitch, PolicyReceipt, ReceiptCheck  # noqa: E402
from policy.services import Approval, _binding_problem, evaluate, receipt_issue, revalidate  # noqa: E402
from registry.models import Capability  # noqa: E402
from registry.selectors import registry_snapshot, snapshot_clear  # noqa: E402
from tenancy.models import Role  # noqa: E402
from tenancy.selectors import membership_get  # noqa: E402
from tenancy.services import membership_grant, tenant_create  # noqa: E402

NAME = "policy_eval"
N = 3_000
N_DB = 1_000
WARMUP = 200
TARGET_P50_MS = 1.0


class _Rollback(Exception):
    pass


def _world():
    tenant = tenant_create(slug=f"bench-policy-{uuid.uuid4().hex[:8]}", name="Bench policy")
    user = get_user_model().objects.create_user(username=f"bench-operator-{uuid.uuid4().hex[:8]}")
    membership_grant(user=user, tenant=tenant, role=Role.OPERATOR)
    return tenant, user


def _reads_before(actor, tenant, grant_ids: tuple[int, int, list[str]]) -> None:
    """The live reads as they were made before `policy.live`: five ORM queries.

    `grant_ids` = (content type id, `use_capability` permission id, capability pks as text), which
    the old code cached per process, so they cost nothing here either.
    """
    content_type_id, permission_id, pks = grant_ids
    membership_get(user=actor, tenant_id=tenant.pk)
    registry_snapshot()
    common = {"content_type_id": content_type_id, "permission_id": permission_id, "object_pk__in": pks}
    list(UserObjectPermission.objects.filter(**common).values_list("object_pk", "user_id"))
    mine = get_user_model().groups.through.objects.filter(user_id=actor.pk, group_id=OuterRef("group_id"))
    list(GroupObjectPermission.objects.filter(**common).annotate(mine=Exists(mine)).values_list("object_pk", "mine"))
    list(KillSwitch.objects.filter(lifted_at__isnull=True).filter(Q(tenant__isnull=True) | Q(tenant=tenant))
         .values_list("pk", "scope", "tenant_id", "target"))


def _grant_ids(keys: list[str]) -> tuple[int, int, list[str]]:
    content_type = ContentType.objects.get_for_model(Capability)
    permission = Permission.objects.get(content_type=content_type, codename="use_capability")
    pks = [str(pk) for pk in Capability.objects.filter(key__in=keys).values_list("pk", flat=True)]
    return content_type.pk, permission.pk, pks


def _queries(fn) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


def measure() -> dict:
    seed(stdout=io.StringIO())
    snapshot_clear()
    tenant, operator = _world()
    # The ACTIVE versions, whatever number the manifest's history has reached in this database.
    active = {key: registry_snapshot().require(key).version
              for key in ("workPermit.read", "workPermit.updateValidity", "workPermit.components.add")}
    validity_input = {"id": 1, "validity_days": 30, "note": "Renovação — equipe de manutenção"}
    steps = [
        {"id": "read", "capability": "workPermit.read", "version": active["workPermit.read"], "input": {"id": 1},
         "targets": [{"type": "workPermit", "id": 1}]},
        {"id": "validity", "capability": "workPermit.updateValidity", "version": active["workPermit.updateValidity"],
         "input": validity_input, "targets": [{"type": "workPermit", "id": 1, "revision": 3}]},
        {"id": "component", "capability": "workPermit.components.add", "version": active["workPermit.components.add"],
         "input": {"id": 1, "component": "workingAtHeight", "notes": "andaime"},
         "targets": [{"type": "workPermit", "id": 1}]},
    ]
    facts = {"workPermit:1": {"tenant": str(tenant.pk), "status": "DRAFT", "revision": 3}}
    parsed = [Step.parse(s) for s in steps]
    first = evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts)
    assert first.outcome == "REQUIRE_CONFIRMATION", first.to_dict()

    state = gather(actor=operator, tenant=tenant, steps=parsed, agent_version="bench")
    keys = sorted({s.capability for s in parsed})
    plan_grant_ids = _grant_ids(keys)
    decide_ms = time_calls(lambda i: decide(state=state, steps=steps, facts=facts), n=N, warmup=WARMUP)
    gather_ms = time_calls(lambda i: live_read(actor=operator, tenant=tenant, keys=keys), n=N_DB, warmup=WARMUP)
    gather_before_ms = time_calls(lambda i: _reads_before(operator, tenant, plan_grant_ids), n=N_DB, warmup=WARMUP)
    evaluate_ms = time_calls(lambda i: evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts),
                             n=N_DB, warmup=WARMUP)

    plan_id, plan_hash = uuid.uuid4(), "a" * 64
    receipt = receipt_issue(actor=operator, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash, steps=steps,
                            facts=facts, approval=Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id,
                                                           plan_hash=plan_hash, level="soft",
                                                           approved_by=operator.pk, approved_at=timezone.now()))
    assert receipt.decision == "ALLOW", receipt.reasons
    started = timezone.now()
    step = Step.parse({**steps[1]})
    one_state = gather(actor=operator, tenant=tenant, steps=[step], agent_version="bench")

    def revalidate_cpu(i: int) -> None:
        now = timezone.now()
        problem = _binding_problem(receipt=receipt, actor=operator, plan_id=plan_id, step_id="validity",
                                   key="workPermit.updateValidity", version=active["workPermit.updateValidity"],
                                   input_hash=canonical_input_hash(validity_input), started=started, now=now)
        assert problem is None, problem
        assert decide(state=one_state, steps=[step], facts=facts, execution_ids=[str(plan_id)]).outcome != "DENY"

    def revalidate_full(i: int) -> None:
        result = revalidate(receipt_id=receipt.pk, actor=operator, tenant=tenant, plan_id=plan_id,
                            step_id="validity", input=validity_input, facts=facts, execution_started_at=started,
                            capability=("workPermit.updateValidity", active["workPermit.updateValidity"]))
        assert result.ok, result

    def revalidate_db(i: int) -> None:
        receipt_with_live(tenant=tenant, receipt_pk=receipt.pk, actor=operator, keys=[step.capability])

    def revalidate_db_before(i: int) -> None:
        PolicyReceipt.objects.for_tenant(tenant).filter(pk=receipt.pk).first()
        _reads_before(operator, tenant, step_grant_ids)

    def check_insert(i: int) -> None:
        ReceiptCheck.objects.create(tenant=tenant, receipt=receipt, receipt_ref=str(receipt.pk), actor=operator,
                                    plan_id=str(plan_id), step_id="validity", capability="workPermit.updateValidity@1",
                                    input_hash="0" * 64, checked_at=timezone.now(), ok=True, code="OK", reasons=[])

    revalidate_cpu_ms = time_calls(revalidate_cpu, n=N, warmup=WARMUP)
    revalidate_db_ms = time_calls(revalidate_db, n=N_DB, warmup=WARMUP)
    step_grant_ids = _grant_ids([step.capability])
    revalidate_db_before_ms = time_calls(revalidate_db_before, n=N_DB, warmup=WARMUP)
    insert_ms = time_calls(check_insert, n=N_DB, warmup=WARMUP)
    revalidate_ms = time_calls(revalidate_full, n=N_DB, warmup=WARMUP)
    query_counts = {"evaluate_queries": _queries(lambda: evaluate(actor=operator, tenant=tenant, steps=steps,
                                                                  facts=facts)),
                    "revalidate_queries": _queries(lambda: revalidate_full(0))}

    def select_one(i: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    baseline = summarize(time_calls(select_one, n=N_DB, warmup=WARMUP))
    ours = summarize(decide_ms)
    revalidate_cpu_summary = summarize(revalidate_cpu_ms)
    return {
        **ours, "baseline": baseline, "ratio": ratio(ours, baseline),
        "revalidate": revalidate_cpu_summary,
        "revalidate_p50_ms": revalidate_cpu_summary["p50_ms"], "revalidate_p95_ms": revalidate_cpu_summary["p95_ms"],
        "evaluate_db": summarize(gather_ms), "revalidate_db": summarize(revalidate_db_ms),
        "evaluate_db_before": summarize(gather_before_ms), "revalidate_db_before": summarize(revalidate_db_before_ms),
        "check_insert": summarize(insert_ms), **query_counts,
        "evaluate_total": summarize(evaluate_ms), "revalidate_total": summarize(revalidate_ms),
        "steps": len(steps), "target_p50_ms": TARGET_P50_MS,
        "meets_target": ours["p50_ms"] < TARGET_P50_MS and revalidate_cpu_summary["p50_ms"] < TARGET_P50_MS,
    }


def main() -> None:
    result: dict = {}
    began = time.monotonic()
    try:
        with transaction.atomic():
            result = measure()
            raise _Rollback
    except _Rollback:
        pass
    snapshot_clear()
    emit(NAME, {**result, "wall_seconds": round(time.monotonic() - began, 1)})


if __name__ == "__main__":
    main()
