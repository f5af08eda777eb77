"""The balance chart of the profile page, computed in Python and drawn as inline SVG.

``balance_chart`` is pure: it turns ``(time, balance)`` points into coordinates in a fixed SVG
box. A balance holds until the next ledger row changes it, so the line is drawn in steps, and it
runs on to ``end`` (usually now) at the last balance.

>>> from datetime import datetime, timezone
>>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> chart = balance_chart([(t, 100)], end=t, width=100, height=50, padding=5)
>>> chart.line, chart.min_balance, chart.max_balance
('0.0,25.0 100.0,25.0', 100, 100)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class BalanceChart:
    """What the template needs to draw the chart; empty when there are no points."""

    width: int
    height: int
    # SVG ``points`` of the step line, and of the same line closed along the bottom (the fill).
    line: str
    area: str
    min_balance: int | None
    max_balance: int | None
    start: datetime | None
    end: datetime | None
    # The last point: where the current balance is marked.
    last_x: float | None
    last_y: float | None

    @property
    def is_empty(self) -> bool:
        return not self.line


def _coordinate(value: float) -> str:
    return f"{value:.1f}"


def balance_chart(
    points: Sequence[tuple[datetime, int]],
    *,
    end: datetime | None = None,
    width: int = 600,
    height: int = 200,
    padding: int = 12,
) -> BalanceChart:
    """Coordinates of a step chart of ``points`` (oldest first) in a ``width`` × ``height`` box.

    Time runs left to right, from the first point to ``end`` (or the last point). When all the
    points share one instant, they are spaced evenly instead. The balance runs bottom (the
    smallest) to top (the largest), ``padding`` units inside the box; a flat line sits in the
    middle. No points give an empty chart.
    """
    if not points:
        return BalanceChart(width, height, "", "", None, None, None, None, None, None)

    times = [moment for moment, _ in points]
    balances = [balance for _, balance in points]
    start = times[0]
    finish = max(times[-1], end) if end is not None else times[-1]
    low, high = min(balances), max(balances)

    span = (finish - start).total_seconds()
    if span > 0:
        xs = [(moment - start).total_seconds() / span * width for moment in times]
    elif len(points) > 1:
        xs = [index / (len(points) - 1) * width for index in range(len(points))]
    else:
        xs = [0.0]
    end_x = float(width)

    inner = height - 2 * padding

    def y_of(balance: int) -> float:
        if high == low:
            return height / 2
        return padding + (high - balance) / (high - low) * inner

    ys = [y_of(balance) for balance in balances]

    steps: list[tuple[float, float]] = [(xs[0], ys[0])]
    for x, y in zip(xs[1:], ys[1:], strict=True):
        steps.append((x, steps[-1][1]))
        steps.append((x, y))
    if steps[-1][0] < end_x:
        steps.append((end_x, ys[-1]))

    line = " ".join(f"{_coordinate(x)},{_coordinate(y)}" for x, y in steps)
    bottom = _coordinate(height)
    area = f"{_coordinate(steps[0][0])},{bottom} {line} {_coordinate(steps[-1][0])},{bottom}"
    return BalanceChart(
        width=width,
        height=height,
        line=line,
        area=area,
        min_balance=low,
        max_balance=high,
        start=start,
        end=finish,
        last_x=steps[-1][0],
        last_y=steps[-1][1],
    )
