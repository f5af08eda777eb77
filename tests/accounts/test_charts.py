"""accounts.charts.balance_chart: the balance chart's coordinates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from accounts.charts import balance_chart

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def pairs(points: str) -> list[tuple[float, float]]:
    return [tuple(float(n) for n in point.split(",")) for point in points.split()]  # type: ignore[misc]


def test_no_points_give_an_empty_chart() -> None:
    chart = balance_chart([])
    assert chart.is_empty
    assert chart.line == chart.area == ""
    assert chart.min_balance is chart.max_balance is None
    assert chart.start is chart.end is None


def test_one_point_is_a_flat_line_in_the_middle_across_the_box() -> None:
    chart = balance_chart([(T0, 10_000)], width=600, height=200)
    assert pairs(chart.line) == [(0.0, 100.0), (600.0, 100.0)]
    assert (chart.min_balance, chart.max_balance) == (10_000, 10_000)
    assert chart.start == chart.end == T0


def test_one_point_runs_on_to_the_end_time() -> None:
    end = T0 + timedelta(days=2)
    chart = balance_chart([(T0, 500)], end=end, width=100, height=50)
    assert pairs(chart.line) == [(0.0, 25.0), (100.0, 25.0)]
    assert chart.end == end


def test_steps_hold_each_balance_until_the_next_change() -> None:
    points = [(T0, 100), (T0 + timedelta(hours=1), 300), (T0 + timedelta(hours=2), 200)]
    chart = balance_chart(points, width=200, height=100, padding=0)
    # Time is proportional; 300 (the highest) is at the top, 100 (the lowest) at the bottom.
    assert pairs(chart.line) == [
        (0.0, 100.0),
        (100.0, 100.0),
        (100.0, 0.0),
        (200.0, 0.0),
        (200.0, 50.0),
    ]
    assert (chart.min_balance, chart.max_balance) == (100, 300)
    assert (chart.last_x, chart.last_y) == (200.0, 50.0)


def test_padding_keeps_the_extremes_inside_the_box() -> None:
    points = [(T0, 0), (T0 + timedelta(minutes=5), 1_000)]
    chart = balance_chart(points, width=100, height=100, padding=10)
    ys = [y for _, y in pairs(chart.line)]
    assert min(ys) == 10.0
    assert max(ys) == 90.0


def test_the_line_continues_to_the_end_at_the_last_balance() -> None:
    points = [(T0, 100), (T0 + timedelta(hours=1), 200)]
    chart = balance_chart(points, end=T0 + timedelta(hours=4), width=400, height=100, padding=0)
    assert pairs(chart.line) == [(0.0, 100.0), (100.0, 100.0), (100.0, 0.0), (400.0, 0.0)]


def test_points_at_one_instant_are_spread_evenly() -> None:
    chart = balance_chart([(T0, 1), (T0, 2), (T0, 3)], width=100, height=100, padding=0)
    xs = sorted({x for x, _ in pairs(chart.line)})
    assert xs == [0.0, 50.0, 100.0]


def test_the_area_closes_the_line_along_the_bottom() -> None:
    points = [(T0, 100), (T0 + timedelta(hours=1), 200)]
    chart = balance_chart(points, width=100, height=80)
    area = pairs(chart.area)
    assert area[0] == (0.0, 80.0)
    assert area[-1] == (100.0, 80.0)
    assert area[1:-1] == pairs(chart.line)


def test_every_coordinate_is_inside_the_box() -> None:
    points = [(T0 + timedelta(minutes=7 * i), (i * 7919) % 5_000) for i in range(50)]
    chart = balance_chart(points, width=640, height=220, padding=12)
    for x, y in pairs(chart.area):
        assert 0 <= x <= 640
        assert 0 <= y <= 220
