import pytest

from tenancy import clock


def test_the_clock_cannot_move_without_test_control(settings):
    settings.AGENT_TEST_CONTROL = False
    with pytest.raises(PermissionError):
        clock.advance(60)


def test_a_stray_offset_is_ignored_when_test_control_is_off(settings):
    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    clock.advance(3600)
    settings.AGENT_TEST_CONTROL = False
    from django.utils import timezone

    assert abs((clock.now() - timezone.now()).total_seconds()) < 5
    settings.AGENT_TEST_CONTROL = True
    clock.reset()


def test_advancing_moves_now_forward_and_accumulates(settings):
    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    from django.utils import timezone

    clock.advance(360)
    clock.advance(60)
    assert 415 < (clock.now() - timezone.now()).total_seconds() < 425
    with pytest.raises(ValueError):
        clock.advance(-1)
    clock.reset()
