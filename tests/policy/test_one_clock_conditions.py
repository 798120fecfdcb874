"""One clock for conditions (issue 19 point 4): an `expired` precondition compares on `tenancy.clock`,
the clock every TTL and window reads. With the test clock moved past an entity's validity, the entity
is expired for policy too — not "still valid" on a second, unmoved clock."""

from __future__ import annotations

from django.utils import timezone

from planning.conditions import holds
from tenancy import clock

DAY_S = 86_400


def test_an_expired_condition_reads_the_moved_clock(settings):
    settings.AGENT_TEST_CONTROL = True
    subject = {"created_at": timezone.now().isoformat(), "validity_days": 30}
    clock.reset()
    try:
        assert holds(subject, "not_expired")
        clock.advance(31 * DAY_S)
        assert holds(subject, "expired") and not holds(subject, "not_expired")
    finally:
        clock.reset()
