"""Every eval / live session option, declared once: its name, type, default and help.

:class:`SessionFields` is the one list. The pydantic options model (``pipeline.session.options.SessionOptions``)
inherits these fields and checks them; the CLI's flags (``cli.options``) and the Python API's keywords
(``forgegate.evaluate``) are generated from them by :func:`declared`, so a field added here reaches the command
line and the API with no second edit. This module imports no pydantic: ``forgegate --help`` builds the flags
from it, and pydantic costs ~30 ms there.
"""

# No ``from __future__ import annotations``: the annotations below are built once, as objects, when the class is
# made, so reading them (``declared``) evaluates no strings (about a millisecond of ``--help`` otherwise).
import typing
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from forgegate.backends import BACKENDS
from forgegate.backends.options import DEVICES_HELP
from forgegate.core.limits import DEFAULT_CONCURRENCY, DEFAULT_IDLE_S, DEFAULT_RETRIES, DEFAULT_TIMEOUT_S
from forgegate.core.samples import DEFAULT_SAMPLES, Samples
from forgegate.core.sampling import (
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOP_P,
    StoredSeed,
    Temperature,
    TopP,
)

SessionKind = Literal["eval", "live"]


class Opt:
    """How one field shows on the command line (``help``; ``flag`` when it is not ``--`` + the name with dashes;
    a ``--no-X`` flag is the field negated; ``cli_default`` where the command line's default differs from the
    API's) and whether it is a flag at all (``cli=False``: the command decides it, e.g. ``kind``). A plain class,
    not a dataclass: making a dataclass costs ``--help`` more than this whole declaration."""

    __slots__ = ("help", "flag", "cli", "cli_default")

    def __init__(self, help: str, flag: str | None = None, cli: bool = True, cli_default: Any = None) -> None:
        self.help, self.flag, self.cli, self.cli_default = help, flag, cli, cli_default


class Declared:
    """One session option as the faces see it: the field, its type with the pydantic markers stripped, whether
    it is optional, its default, and how the command line shows it."""

    __slots__ = ("name", "type", "optional", "default", "opt")

    def __init__(self, name: str, type: Any, optional: bool, default: Any, opt: Opt) -> None:
        self.name, self.type, self.optional, self.default, self.opt = name, type, optional, default, opt

    @property
    def flag(self) -> str:
        return self.opt.flag or f"--{self.name.replace('_', '-')}"

    @property
    def negated(self) -> bool:
        """A ``--no-X`` flag: the field is True unless the flag is given."""
        return self.flag.startswith("--no-") and self.type is bool


class SessionFields:
    """Everything an eval or live session is asked to do, one line per option (read by the model, the CLI and
    the API; the rules that need several fields are the model's)."""

    kind: Annotated[SessionKind, Opt("eval or live (the command; the API's live=True)", cli=False)] = "eval"
    battery: Annotated[Path | None, Opt("Battery JSONL (default: the bundled GLOSS v2 battery).")] = None
    backend: Annotated[str, Opt(f"Model backend: {', '.join(BACKENDS.names())}.")] = "embedded"
    model: Annotated[str | None, Opt("Model name/tag/path (required for ollama and openai).")] = None
    base_urls: Annotated[tuple[str, ...], Opt("Server URL; repeat to spread load over replicas.",
                                              flag="--base-url")] = ()
    adapter: Annotated[str | None, Opt("LoRA adapter: a PEFT folder (transformers, vllm) or GGUF file "
                                       "(llamacpp).")] = None
    device: Annotated[str, Opt(f"Where the model runs (transformers): {DEVICES_HELP}.")] = "auto"
    dtype: Annotated[str, Opt("Weights dtype (transformers): auto (bfloat16/float16 on GPU, float32 on CPU), "
                              "float32, float16, bfloat16.")] = "auto"
    batch_size: Annotated[int | None, Opt("Most requests decoded together (transformers; default from the "
                                          "device; 1 = strict, unbatched).")] = None
    gate_config: Annotated[Path | None, Opt("Gate config TOML (default: the bundled GLOSS v2 gate).")] = None
    concurrency: Annotated[int, Opt("Requests in flight at once (at least 1).")] = DEFAULT_CONCURRENCY
    seed: Annotated[StoredSeed, Opt("Sampling seed passed to the backend (printed with every result; a 64-bit "
                                    "whole number).")] = DEFAULT_SEED
    samples: Annotated[Samples, Opt("Answers per item, each with its own recorded seed (the first is --seed): "
                                    "the word stands only when all K replicates agree, HOLD otherwise (1 = the "
                                    "spec's procedure).")] = DEFAULT_SAMPLES
    temperature: Annotated[Temperature | None, Opt(
        "Sampling temperature (0 = greedy; finite, 0 or more). Default: not sent, the model's own served sampling "
        "(GLOSS v2's procedure); any value is recorded as a departure from the spec's procedure.")
    ] = DEFAULT_TEMPERATURE
    top_p: Annotated[TopP | None, Opt("Nucleus sampling p (above 0, at most 1). Default: not sent (as served); any "
                                      "value is a departure from the spec's procedure.")] = DEFAULT_TOP_P
    system: Annotated[str | None, Opt("System prompt for chat requests.")] = None
    retries: Annotated[int, Opt("Attempts per request (at least 1), the later ones only after a transient error "
                                "(5xx, a dropped connection, a missed deadline).")] = DEFAULT_RETRIES
    timeout: Annotated[float, Opt("Whole-request deadline in seconds, connect to last byte (server backends); a "
                                  "request that misses it is retried, and recorded as an error if it never "
                                  "succeeds.")] = DEFAULT_TIMEOUT_S
    idle_timeout: Annotated[float | None, Opt(
        f"Seconds of silence (no byte at all) after which a server request counts as stalled (default: the "
        f"smaller of --timeout and {DEFAULT_IDLE_S:g}).")] = None
    wait: Annotated[bool, Opt("If another process is generating this run, exit 2 at once instead of waiting for "
                              "it.", flag="--no-wait")] = True
    """Wait for another process generating the same run (False: refuse at once)."""
    loop_cutoff: Annotated[bool, Opt("Let a looping answer run to its cap instead of cutting it off as the loop "
                                     "starts (same score either way; recorded in the run).",
                                     flag="--no-loop-cutoff")] = True
    """Stop an answer as soon as the loop detector finds a loop in it (False: ``--no-loop-cutoff``, run to the cap)."""
    api_key_env: Annotated[str | None, Opt("Environment variable holding the API key (openai).")] = None
    store: Annotated[Path | None, Opt("Run store directory (default: $FORGEGATE_HOME/runs, "
                                      "./.forgegate/runs).")] = None
    quiet: Annotated[bool, Opt("No progress bar (also off when stderr is not a terminal).", cli_default=False)] = True
    """True from the API (a script wants no bar); the command line's default is False, and the bar is also off
    when stderr is no terminal."""
    check_failure_modes: Annotated[bool, Opt("Gate on the v9 failure-mode signatures too: any present makes the "
                                             "verdict FAIL.")] = False
    training_corpus: Annotated[Path | None, Opt(
        "The training corpus (JSONL): when LX-B, LX-G or LX-X fail, run the format audit against it and show its "
        "finding (GLOSS v2's follow-up; the verdict stays FAIL).")] = None
    """The training corpus (JSONL) the format audit reads when LX-B, LX-G or LX-X fail (GLOSS v2's follow-up)."""


def _plain(annotation: Any) -> tuple[Any, bool, Opt]:
    """``Annotated[T | None, ..., Opt]`` -> ``(T, optional, the Opt)``: the type the faces show, without the
    model's markers (``Checked`` rules stay the model's)."""
    args = typing.get_args(annotation)
    opt = next(meta for meta in args[1:] if isinstance(meta, Opt))
    inner = args[0]
    members = typing.get_args(inner) if typing.get_origin(inner) in (typing.Union, type(int | None)) else ()
    if members and type(None) in members:
        rest = [member for member in members if member is not type(None)]
        plain = rest[0]
        if typing.get_origin(plain) is Annotated:  # an optional checked value (``Temperature | None``)
            plain = typing.get_args(plain)[0]
        return plain, True, opt
    return inner, False, opt


@cache
def declared() -> tuple[Declared, ...]:
    """Every option of :class:`SessionFields` in declaration order (read by the CLI and the API)."""
    out = []
    for name, annotation in SessionFields.__annotations__.items():
        plain, optional, opt = _plain(annotation)
        out.append(Declared(name, plain, optional, getattr(SessionFields, name), opt))
    return tuple(out)


def keyword_type(option: Declared) -> Any:
    """The type ``forgegate.evaluate`` takes for ``option``: a path may be text or a ``Path``, a tuple any sequence,
    and an optional one None. Read by the runtime signature (``api.py``) and by the rendered ``SessionKeywords``
    (``session_keywords_render``), so the two cannot differ."""
    annotation: Any = option.type
    if annotation is Path:
        annotation = str | Path
    elif typing.get_origin(annotation) is tuple:
        annotation = Sequence[typing.get_args(annotation)[0]]  # type: ignore[misc]
    return annotation | None if option.optional else annotation


def flag(field: str) -> str:
    """The command-line flag of ``field`` (the API's keyword of the same name)."""
    return next((option.flag for option in declared() if option.name == field),
                f"--{field.replace('_', '-')}")
