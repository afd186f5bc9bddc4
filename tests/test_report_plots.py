"""The plotting module: inline SVG, identical bytes for identical numbers, labels escaped, rules drawn."""

from __future__ import annotations

from report_helpers import parse

from forgegate.report.plots import Bar, RefLine, category_chart, cluster_mass_chart, strip_chart

BARS = [Bar("LX-A", 0.8, "PASS"), Bar("LX-Z", 0.2, "FAIL"), Bar("LX-C", None, "INCOMPLETE")]


def test_charts_are_bare_svg_elements_with_the_same_bytes_each_time() -> None:
    first = category_chart(BARS, floor=0.5, sigma_total=0.45, sigma_min=0.4)
    assert first == category_chart(BARS, floor=0.5, sigma_total=0.45, sigma_min=0.4)
    assert first.startswith("<svg") and first.endswith("</svg>")
    assert "<?xml" not in first and "DOCTYPE" not in first and "<dc:date>" not in first
    assert first != category_chart(BARS, floor=0.6, sigma_total=0.45, sigma_min=0.4)


def test_category_chart_labels_each_bar_the_floor_and_sigma() -> None:
    text = parse(category_chart(BARS, floor=0.5, sigma_total=0.45, sigma_min=0.4)).text
    for label in ("LX-A", "LX-Z", "LX-C", "0.80", "0.20", "n/a", "σ_total", "0.45", "category floor 0.50",
                  "σ_total minimum 0.40"):
        assert label in text


def test_live_chart_leaves_sigma_out() -> None:
    text = parse(category_chart(BARS, floor=0.5, sigma_total=None, sigma_min=None, show_sigma=False)).text
    assert "σ_total" not in text and "category floor 0.50" in text


def test_text_in_a_chart_is_escaped() -> None:
    svg = strip_chart({"<script>a</script>": {"1": 0.5, "2": 0.6}, "b": {"1": 0.4, "2": 0.45}},
                      [RefLine(0.3, "</svg><b>floor</b>")], ylabel="Delta", title="t & <t>")
    shape = parse(svg)
    assert "script" not in shape.tags and "b" not in shape.tags
    assert "<script>a</script>" in shape.text and "</svg><b>floor</b>" in shape.text


def test_cluster_mass_chart_marks_lost_clusters_only() -> None:
    text = parse(cluster_mass_chart({"A": {"c1": 0.5, "c2": 0.5}, "B": {"c1": 1.0}}, ["c1", "c2"], lost=["c2"],
                                    title="t1")).text
    assert "(lost)" in text and text.count("(lost)") == 1
