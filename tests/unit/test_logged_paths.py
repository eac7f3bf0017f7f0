"""The request log names secret-bearing paths by their route: calendar feeds and claim links (their tokens are the
only proof a holder needs)."""

from api.calendar_feeds import logged_path


def test_secrets_in_paths_never_reach_the_request_log() -> None:
    assert logged_path("/calendar/shc_abcdef.ics") == "/calendar/{secret}.ics"
    assert logged_path("/waitlist/claim/Zm9vYmFy") == "/waitlist/claim/{token}"
    assert logged_path("/walk-in/claim/Zm9vYmFy") == "/walk-in/claim/{token}"
    assert logged_path("/graphql") == "/graphql"
