"""Small inline SVG line charts for the lineage page: numbers only, drawn with presentation attributes.

No text from a file goes into the SVG (labels stay in the HTML around it, escaped), and no
inline style is used, so the page's Content-Security-Policy needs no exception.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

WIDTH, HEIGHT, PAD = 240, 60, 6


def sparkline(values: Sequence[float | None], marked: Sequence[bool], *, floor: float | None = None) -> Markup:
    """Scores 0..1 over versions as a polyline; a filled dot marks a graduated version, a hollow one the rest.

    A missing score (None) breaks the line. ``floor`` draws a dashed horizontal line.
    """
    n = len(values)
    step = (WIDTH - 2 * PAD) / max(n - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return PAD + i * step, HEIGHT - PAD - max(0.0, min(1.0, v)) * (HEIGHT - 2 * PAD)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img">',
             f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#f3f5f7"/>']
    if floor is not None:
        _, y = xy(0, floor)
        parts.append(f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y:.1f}" y2="{y:.1f}" stroke="#c62828" '
                     'stroke-dasharray="3,3" stroke-width="1"/>')
    segment: list[str] = []
    for i, v in enumerate([*values, None]):
        if v is None:
            if len(segment) > 1:
                parts.append(f'<polyline points="{" ".join(segment)}" fill="none" stroke="#1565c0" '
                             'stroke-width="1.5"/>')
            segment = []
            continue
        x, y = xy(i, v)
        segment.append(f"{x:.1f},{y:.1f}")
    for i, (v, mark) in enumerate(zip(values, marked, strict=True)):
        if v is not None:
            x, y = xy(i, v)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" stroke="#1565c0" stroke-width="1.5" '
                         f'fill="{"#1565c0" if mark else "#ffffff"}"/>')
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 (numbers and fixed attributes only)
