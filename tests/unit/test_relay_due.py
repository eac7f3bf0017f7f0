"""jobs/relay.due: a job time that has passed runs now (arq refuses a deferral more than a day in the past: Redis
answers 'invalid expire time in psetex' and the relay, retrying that outbox row, published nothing else)."""

from datetime import UTC, datetime, timedelta

from jobs.relay import due


def test_a_past_time_runs_now_and_a_future_one_waits() -> None:
    now = datetime.now(UTC)
    assert due(None) is None
    assert due(now - timedelta(days=5)) is None
    assert due(now - timedelta(seconds=1)) is None
    later = now + timedelta(minutes=10)
    assert due(later) == later
