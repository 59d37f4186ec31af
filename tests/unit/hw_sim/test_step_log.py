"""Tracing an alert back to its script step."""

from hw_sim.dealer import StepLog


def test_a_late_mark_of_the_earlier_step_does_not_hide_the_later_one():
    log = StepLog()
    log.mark((1, 9), 10.0)
    log.mark((1, 10), 12.0)  # the dealer unplugs the reader (step 10)
    log.mark((1, 9), 11.0)  # a cycle looked at under step 9, reported after step 10 began
    assert log.step_at(12.5) == (1, 10)  # the offline alert belongs to step 10
    assert log.step_at(11.5) == (1, 9)
    assert log.step_at(9.0) is None
