"""Where the grid's slots lie in time: each opening window's slots inside [start, end) (a frame), and the frames of
one set of hours laid end to end, indexed so that an occupancy finds the frames it touches."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import NamedTuple


class _Frame(NamedTuple):
    """Where one opening window's slots inside [start, end) lie: its first slot, as a datetime and as POSIX
    seconds, the window's closing time in POSIX seconds, and how many whole slots fit."""

    first: datetime
    f: float
    close: float
    n: int


def _frames(windows: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime,
            step: timedelta) -> list[_Frame]:
    """The opening windows that have at least one slot inside [start, end), in the order given."""
    step_s = step.total_seconds()
    start_s, end_s = start.timestamp(), end.timestamp()
    out: list[_Frame] = []
    for o, c in windows:
        o_s, c_s = o.timestamp(), c.timestamp()
        skip = max(0, -int((o_s - start_s) // step_s))  # slots of the window before `start`
        f = o_s + skip * step_s
        n = int(min((c_s - f) // step_s, (end_s - f) // step_s)) if f < end_s else 0
        if n > 0:
            out.append(_Frame(o + step * skip, f, c_s, n))
    return out


class _Layout:
    """The frames of one set of hours laid end to end: the slots of frame w are slots offsets[w]... of the whole.

    To find the frames an occupancy [s0, s1) touches: `firsts` (POSIX seconds) are the frames' first slots in
    time order (`by_first[j]` is the frame, `starts[j]` its offset, `sizes[j]` its slots, `ends[j]` the end of
    its last slot); those touched start after s0 - reach and before s1. When no two frames overlap,
    `frame_at[s0]` gives the j of the frame where s0 is a slot start: the one frame touched if s1 <= ends[j].
    """

    __slots__ = ("by_first", "ends", "firsts", "frame_at", "frames", "offsets", "reach", "sizes", "starts",
                 "step", "step_s", "total")

    def __init__(self, frames: list[_Frame], step: timedelta) -> None:
        self.frames, self.step = frames, step
        self.step_s = step_s = step.total_seconds()
        self.offsets, total = [], 0
        for fr in frames:
            self.offsets.append(total)
            total += fr.n
        self.total = total
        self.by_first = sorted(range(len(frames)), key=lambda w: frames[w].f)
        self.firsts = [frames[w].f for w in self.by_first]
        self.starts = [self.offsets[w] for w in self.by_first]
        self.sizes = [frames[w].n for w in self.by_first]
        self.ends = [f + n * step_s for f, n in zip(self.firsts, self.sizes, strict=True)]
        self.reach = max(self.sizes, default=0) * step_s + step_s
        self.frame_at: dict[float, int] = {}
        if all(e <= f for e, f in zip(self.ends, self.firsts[1:], strict=False)):
            self.frame_at = {f + i * step_s: j for j, (f, n) in enumerate(zip(self.firsts, self.sizes, strict=True))
                             for i in range(n)}
