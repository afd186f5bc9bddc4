"""A griffe extension for the API page: a function whose signature is generated at import (``__signature__``,
e.g. ``forgegate.evaluate``'s keywords, made from the session options' one declaration) is shown with that
signature instead of the ``**options`` its source spells (issue 34, item 4)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def _shown(annotation: Any) -> str | None:
    if annotation is inspect.Parameter.empty:
        return None
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    return str(text).replace("pathlib.", "").replace("collections.abc.", "")


class RuntimeSignatures(griffe.Extension):
    """Replace the parameters of a function that carries ``__signature__`` with those of its runtime signature."""

    def on_function(self, *, func: griffe.Function, **kwargs: Any) -> None:
        try:
            runtime = getattr(importlib.import_module(func.module.path), func.name)
        except (ImportError, AttributeError):
            return
        if "__signature__" not in getattr(runtime, "__dict__", {}):
            return
        signature = inspect.signature(runtime)
        func.parameters = griffe.Parameters(*(
            griffe.Parameter(name, annotation=_shown(param.annotation), kind=_KINDS[param.kind],
                             default=None if param.default is inspect.Parameter.empty else repr(param.default))
            for name, param in signature.parameters.items()))
