"""The base of every model a user writes (battery, plan, gate config, a gate config's ``[loops]``): one config.

Unknown keys are refused (a typo is an error, not a no-op), NaN and infinity are refused (a NaN floor
passes every comparison), values are frozen. ``forgegate.userfile.UserFileModel`` is this class; it
lives in ``core`` so that settings an instrument reads (``forgegate.core.loop_settings``) are held to
the same rules without the instruments importing a layer above them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Refuses unknown keys, NaN and infinity; frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
