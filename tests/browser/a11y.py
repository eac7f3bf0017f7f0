"""The accessibility check of the browser tests: axe-core (vendored in tests/browser/vendor/, see its README) run on
the page as it is, failing on any violation of impact serious or critical, each named by rule, element and help."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
FAILING = ("serious", "critical")


async def violations(page: Any, include: str | None = None) -> list[dict[str, Any]]:
    """axe's violations of serious or critical impact on `page` (or within the `include` selector)."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = await page.evaluate(
        """async include => {
            const result = await axe.run(include ? {include: [include]} : document,
                                         {resultTypes: ['violations']});
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
        }""", include)
    return [v for v in found if v["impact"] in FAILING]


def described(found: list[dict[str, Any]]) -> str:
    lines = []
    for v in found:
        lines.append(f"- {v['id']} ({v['impact']}): {v['help']} <{v['url']}>")
        lines.extend(f"    {n['target']}: {n['summary'].splitlines()[-1].strip() if n['summary'] else ''}"
                     for n in v["nodes"][:8])
    return "\n".join(lines)


async def assert_accessible(page: Any, context: str, include: str | None = None) -> None:
    """Fail when axe finds a serious or critical violation on the page (`context` names the screen)."""
    found = await violations(page, include)
    assert not found, f"accessibility violations on {context}:\n{described(found)}"
