"""The report's HTML templates and inline CSS (jinja2, autoescape on: every string is escaped).

Kept as Python strings so the package needs no template data files. Only SVG made by
``forgegate.report.plots`` passes unescaped, through the ``svg`` filter, which refuses
anything that is not an ``<svg>`` element. A Content-Security-Policy forbids scripts and
every network fetch, as a second wall behind the escaping.
"""

from __future__ import annotations

from markupsafe import Markup

from forgegate.core.verdict import Gate

_GATE_VARS = " ".join(f"--{gate.value.lower()}:{gate.hex_colour};" for gate in Gate)
CSS = "\n:root { " + _GATE_VARS + """ --ink:#1c2329;
        --muted:#5f6b73; --line:#d5dbe0; --bg:#fbfcfd; }
* { box-sizing: border-box; }
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", "DejaVu Sans",
       sans-serif; color: var(--ink); background: var(--bg); margin: 0; line-height: 1.45; font-size: 15px; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 6px; } h4 { font-size: 14px; margin: 14px 0 4px; }
.verdict { display: flex; gap: 14px; align-items: baseline; padding: 14px 18px; border-radius: 8px; color: #fff; }
.verdict .word { font-size: 30px; font-weight: 800; letter-spacing: .5px; }
.verdict .line { font-size: 16px; }
.g-PASS { background: var(--pass); } .g-FAIL { background: var(--fail); } .g-HOLD { background: var(--hold); }
.g-INCOMPLETE { background: var(--incomplete); } .g-INVALID { background: var(--invalid); }
.badge { display: inline-block; padding: 1px 7px; border-radius: 4px; color: #fff; font-size: 12px; font-weight: 700; }
ol.reasons { margin: 10px 0 0; padding-left: 22px; } ol.reasons li { margin: 2px 0; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13.5px; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef2f5; font-weight: 600; }
table.prov td:first-child { width: 210px; color: var(--muted); white-space: nowrap; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px;
              word-break: break-all; }
pre.output { white-space: pre-wrap; word-break: break-word; background: #f3f5f7; border: 1px solid var(--line);
             border-radius: 4px; padding: 8px 10px; margin: 4px 0 6px; max-height: 18em; overflow: auto;
             font-size: 12.5px; }
mark { background: #ffe082; outline: 1px solid #ffb300; }
.item { border-left: 4px solid var(--fail); padding: 4px 0 4px 12px; margin: 10px 0 16px; }
.item .meta { color: var(--muted); font-size: 13px; }
.mode { display: inline-block; background: #fce4ec; color: #880e4f; border-radius: 3px; padding: 0 6px;
        margin-right: 4px; font-size: 12px; font-weight: 600; }
.chart { overflow-x: auto; margin: 8px 0; } .chart svg { max-width: 100%; height: auto; }
.note { color: var(--muted); font-size: 13px; }
.warn { background: #fff8e1; border: 1px solid #ffe082; padding: 8px 12px; border-radius: 6px; }
footer { margin-top: 48px; color: var(--muted); font-size: 12px; }
"""

_MACROS = r"""
{%- macro badge(word) -%}<span class="badge g-{{ word }}">{{ word }}</span>{%- endmacro -%}
{%- macro table(t) -%}
<table><thead><tr>{% for h in t.header %}<th>{{ h }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in t.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}
</tbody></table>
{%- endmacro -%}
{%- macro reasons(items) -%}
<ol class="reasons">
{% for r in items %}<li>{{ badge(r.outcome) }} <strong>{{ r.rule }}</strong>: {{ r.detail }}</li>
{% endfor %}
</ol>
{%- endmacro -%}
{%- macro output(item) -%}
{%- if item.missing is not none -%}
<pre class="output">[{{ item.missing }}]</pre>
{%- else -%}
<pre class="output">
{%- for seg in item.segments -%}
{%- if seg.loop %}<mark>{{ seg.text }}</mark>{% else %}{{ seg.text }}{% endif -%}
{%- endfor -%}
</pre>
{%- endif -%}
{%- endmacro -%}
"""

_IMPORT = '{% from "macros" import badge, table, reasons, output %}'

PAGE = _IMPORT + r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ head.gate }} — {{ head.subject }} — forgegate report</title>
<style>{{ css }}</style></head>
<body><main>
<section id="verdict">
<div class="verdict g-{{ head.gate }}"><span class="word" id="verdict-word">{{ head.label }}</span>
<span class="line" id="verdict-line">{{ head.line }}</span></div>
{{ reasons(head.reasons) }}
</section>
<h2>Provenance</h2>
<table class="prov"><tbody>
{% for key, value in head.provenance %}<tr><td>{{ key }}</td><td class="mono">{{ value }}</td></tr>
{% endfor %}
</tbody></table>
{% if ships is not none %}
<section id="ships"><h2>Ship choice (pre-registered tiebreak)</h2>
<p>Tied candidates: {{ ships.candidates|join(', ') }}; axes, in the declared order: {{ ships.axes|join(', ') }};
prior: {{ ships.prior or 'none declared' }}.</p>
<div class="verdict g-{{ ships.outcome }}">
<span class="word" id="ships-arm">SHIPS: {{ ships.arm or 'none' }}</span></div>
{{ reasons(ships.reasons) }}
</section>
{% endif %}
{% if quality %}
<section id="quality"><h2>T_GPT quality guardrails (Q_task / Q_fact)</h2>
{% for title, t in quality.tables %}<h3>{{ title }}</h3>{{ table(t) }}
{% endfor %}{{ reasons(quality.reasons) }}
</section>
{% endif %}
{% include section %}
<footer>Rendered by forgegate {{ head.renderer_version }} at {{ head.rendered_at }}.
Self-contained: no scripts, no network; every model output and user string is escaped.</footer>
</main></body></html>
"""

GLOSS = _IMPORT + r"""
<h2>{{ view.title }}: categories</h2>
<p>σ_total <strong>{{ view.sigma_total }}</strong>
{%- if view.sigma_over %} ({{ view.sigma_over }}){% endif %}
{%- if view.sigma_min is not none %} (minimum {{ '%.2f'|format(view.sigma_min) }}){% endif %};
category floor
{% if view.floor is not none %}<strong>{{ '%.2f'|format(view.floor) }}</strong>
{%- else %}not recorded in the result{% endif %}.
Failed categories: {{ view.failed_categories|join(', ') or 'none' }}.
Failure modes: {{ view.failure_modes|join(', ') or 'none' }}.
Token counts from: {{ view.token_sources|join(', ') or 'n/a' }}.</p>
{% if view.samples %}<p id="samples-line"><strong>{{ view.samples }}</strong>; the table shows sample 1 (the run's
seed), the last column the mean over every sample with its 95% Wilson interval.</p>{% endif %}
<div class="chart" id="category-chart">{{ view.chart_svg|svg }}</div>
<table id="category-table"><thead><tr><th>category</th><th>score</th><th>passed / n</th><th>unanswered</th>
<th>weight</th><th>gate</th>{% if view.samples %}<th>over the samples</th>{% endif %}</tr></thead>
<tbody>
{% for c in view.categories %}<tr><td>{{ c.name }}</td><td>{{ c.score }}</td><td>{{ c.passed }}/{{ c.n }}</td>
<td>{{ c.missing }}</td><td>{{ c.weight }}</td><td>{{ badge(c.gate) }}</td>
{%- if view.samples %}<td>{{ c.over_samples }}</td>{% endif %}</tr>
{% endfor %}
</tbody></table>
{% if view.margins %}<details id="margins"><summary>Margin to the next word</summary><ul>
{% for m in view.margins %}<li>{{ m }}</li>{% endfor %}</ul></details>{% endif %}
{% if view.followup is not none %}
<p class="warn" id="format-followup"><strong>Follow-up (EVAL_FALSE_NEGATIVE):</strong> {{ view.followup }}</p>
{% endif %}
{% if view.stop is not none %}
<h2 id="stop-distribution">LX-STOP termination distribution</h2>
<p id="stop-line"><strong>{{ view.stop.line }}</strong>. Finish reasons: {{ view.stop.finishes }}.</p>
<div class="chart" id="stop-histogram">{{ view.stop.chart_svg|svg }}</div>
<table id="stop-table"><thead><tr>{% for h in view.stop.header %}<th>{{ h }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in view.stop.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}
</tbody></table>
{% endif %}
<h2 id="failure-report">Failure report ({{ view.failing_count }} failing items)</h2>
{% for c in view.categories if c.failing %}
<h3>{{ c.name }} — score {{ c.score }} {{ badge(c.gate) }}, {{ c.failing|length }} failing</h3>
{% for item in c.failing %}
<div class="item">
<div><strong class="mono">{{ item.id }}</strong>
{% for m in item.failure_modes %}<span class="mode">{{ m }}</span>{% endfor %}
{% if item.passes %}<span class="meta">({{ item.passes }}; sample 1 shown)</span>{% endif %}</div>
<div class="meta">prompt:</div><pre class="output">{{ item.prompt }}</pre>
<div class="meta">observed output — {{ item.tokens }} tokens ({{ item.token_source }}), finish {{ item.finish }},
score {{ item.score }}
{%- if item.loop_span %}, repeated span at characters {{ item.loop_span[0] }}–{{ item.loop_span[1] }}
highlighted{% endif %}:</div>
{{ output(item) }}
<div class="meta">checks: {{ item.detail }}{% if item.span_note %} ({{ item.span_note }}){% endif %}</div>
</div>
{% endfor %}
{% else %}<p>No failing items.</p>
{% endfor %}
<h2 id="loops">Loop outputs ({{ view.loops|length }})</h2>
{% for item in view.loops %}
<div class="item"><div><strong class="mono">{{ item.id }}</strong> ({{ item.category }})
{% for m in item.failure_modes %}<span class="mode">{{ m }}</span>{% endfor %}
<span class="meta">{{ item.tokens }} tokens, finish {{ item.finish }}; repeated span at characters
{{ item.loop_span[0] }}–{{ item.loop_span[1] }}</span></div>
{{ output(item) }}</div>
{% else %}<p>No loop was detected in any output.</p>
{% endfor %}
{% if view.reviews %}
<h2 id="reviews">Human reviews ({{ view.reviews|rejectattr("latest", "none")|list|length }}
of {{ view.reviews|length }} decided)</h2>
<ul id="review-list">
{% for r in view.reviews %}<li><strong class="mono">{{ r.id }}</strong> ({{ r.category }}):
{% if r.latest %}<b>{{ r.latest.decision }}</b> by <b class="reviewer">{{ r.latest.reviewer }}</b>
at {{ r.latest.decided_at }}
{%- if r.latest.note %}: {{ r.latest.note }}{% endif %}
{%- for h in r.replaced %}{% if loop.first %}<br><span class="meta">replaced, oldest first: {% endif %}
{{ h.decision }} by {{ h.reviewer }} at {{ h.decided_at }}{% if h.note %}: {{ h.note }}{% endif %}
{%- if not loop.last %};{% else %}</span>{% endif %}
{%- endfor %}
{% else %}pending: awaits a reviewer (`forgegate review RUN ITEM`){% endif %}</li>
{% endfor %}</ul>
{% endif %}
"""

ARMS = _IMPORT + r"""
<h2>Three-axis verdict</h2>
<table id="three-axis"><thead><tr><th>candidate vs control</th><th>primary</th><th>A. voice</th>
<th>B. not copied</th><th>C. no damage</th><th>verdict</th></tr></thead>
<tbody>
{% for c in view %}<tr><td>{{ c.title }}</td><td>{{ c.primary }}</td><td>{{ c.cells[0] }}</td>
<td>{{ c.cells[1] }}</td><td>{{ c.cells[2] }}</td><td>{{ badge(c.gate) }} {{ c.label }}</td></tr>
{% endfor %}
</tbody></table>
{% for c in view %}
<h2>{{ c.title }} {{ badge(c.gate) }}</h2>
{% for axis in c.axes %}
<h3>{{ axes_titles[axis.axis] }} {{ badge(axis.gate) }}</h3>
{% if axis.facts %}<table class="prov"><tbody>
{% for k, v in axis.facts %}<tr><td>{{ k }}</td><td>{{ v }}</td></tr>
{% endfor %}
</tbody></table>{% endif %}
{% for svg in axis.charts %}<div class="chart">{{ svg|svg }}</div>
{% endfor %}
{% for title, t in axis.tables %}<h4>{{ title }}</h4>{{ table(t) }}
{% endfor %}
<h4>reasons</h4>{{ reasons(axis.reasons) }}
{% endfor %}
{% endfor %}
"""

SEMANTIC = _IMPORT + r"""
<h2>T_GPT semantic support</h2>
{% if view.mode != 'confirmatory' %}
<p class="warn"><strong>{{ view.mode|upper }}</strong>:
{{ view.exploratory_reasons|join('; ') or 'not for confirmatory use' }}</p>
{% endif %}
<p>Mode {{ view.mode }}; experiment {{ view.experiment }}; roles: reference {{ view.roles.reference }},
contracted {{ view.roles.contracted }}, recovery {{ view.roles.recovery }}; support tau {{ view.tau }};
bootstrap {{ view.bootstrap }}.</p>
<p>Field {{ view.field }} (T_GPT: not comparable with another field without a measurement bridge).
{% if view.relevance %}{{ view.relevance }}.{% endif %}</p>
<h3>Metrics across tasks (95% CIs)</h3>{{ table(view.across) }}
<div class="note" id="semantic-caveats"><strong>{{ view.caveats_title }}</strong><ul>
{% for caveat in view.caveats %}<li>{{ caveat }}</li>{% endfor %}</ul></div>
<h3>Condition metrics across tasks</h3>{{ table(view.conditions) }}
<h3>Per task</h3>{{ table(view.tasks) }}
<h3>UNMAPPED rate</h3>{{ table(view.unmapped) }}
<h3>Support-threshold sensitivity (point estimates)</h3>{{ table(view.sensitivity) }}
<h3>Unfiltered analysis</h3>{{ table(view.unfiltered) }}
<h3>Controls</h3>{{ table(view.controls) }}
<h3>Endpoints</h3>{{ table(view.endpoints) }}
<h3>Cluster probability mass per condition</h3>
<p class="note">Shaded, red-labelled clusters are lost: in the reference condition's support and not in the
contracted condition's.</p>
{% for chart in view.charts %}<div class="chart">{{ chart.svg|svg }}</div>
{% endfor %}
"""


def svg_filter(value: str) -> Markup:
    """Let an SVG made by ``forgegate.report.plots`` through unescaped; refuse anything else."""
    text = str(value)
    if not text.startswith("<svg") or not text.rstrip().endswith("</svg>") or "<script" in text.lower():
        raise ValueError("only <svg> elements made by forgegate.report.plots may be inlined")
    return Markup(text)  # noqa: S704 (made by matplotlib, which XML-escapes every text it draws)


TEMPLATES = {"macros": _MACROS, "page": PAGE, "gloss": GLOSS, "arms": ARMS, "semantic": SEMANTIC}
