"""The guard every browser test's pages run under (conftest.Guard): a request to another host is stopped before
it leaves and reported, and so is a console error."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Guard


async def test_a_request_off_the_machine_is_stopped_and_a_console_error_is_reported(browser: Any) -> None:
    guard = Guard()
    context = await browser.new_context()
    try:
        await guard.watch(context)
        page = guard.page(await context.new_page())
        await page.set_content("<p>nothing</p>")
        outcome = await page.evaluate("""() => fetch('https://example.com/track.js').then(
            () => 'fetched', e => e.name)""")
        await page.evaluate("console.error('something broke')")
        await page.wait_for_timeout(100)
    finally:
        await context.close()
    assert outcome == "TypeError"  # aborted here: it never reached the network
    assert any("request off the machine: https://example.com/track.js" in p for p in guard.problems), guard.problems
    assert any("console error: something broke" in p for p in guard.problems), guard.problems
    with pytest.raises(AssertionError, match="must not"):
        guard.check()
