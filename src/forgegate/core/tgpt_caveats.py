"""T_GPT v0.8.1's own statements of what its metrics do not mean: every semantic table carries them, once.

Issue 36: "not latent-space loss" and IRREV_OBS "never interpreted as irreversibility of model weights or cognition"
appeared nowhere in the output. The terminal, HTML and Markdown renderers read this one tuple.
"""

from __future__ import annotations

SEMANTIC_CAVEATS: tuple[str, ...] = (
    "Scope: No metric is interpreted as direct access to a latent total field or model weights.",
    "ES_LOSS: It is observable support loss, not latent-space loss.",
    "IRREV_OBS: Non-recovered fraction under this exact probe family, model, sampling regime and budget; never "
    "interpreted as irreversibility of model weights or cognition.",
    "Support is operational and N-dependent.",
)
"""Quoted from T_GPT v0.8.1 (``scope``, ``ES_LOSS.interpretation``, ``IRREV_OBS.interpretation``,
``finite_sample_caveat``), in that order."""
CAVEATS_TITLE = "What these numbers do not mean (T_GPT v0.8.1)"
