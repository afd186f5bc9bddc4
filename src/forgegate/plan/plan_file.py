"""The plan file's schema: arms, fixture, seeds, sampling, instruments, comparisons (pydantic, strict).

Only the shape and the cross-references are checked here; files the plan names are
checked by ``forgegate.plan.inputs`` (a fresh preset validates before its files exist).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, ValidationInfo, field_validator, model_validator

from forgegate.backends.adapters import adapter_refusal
from forgegate.backends.base import BackendConfig, base_url_problem
from forgegate.backends.options import device_problem, option_backends, option_refusal
from forgegate.core.checked import checked
from forgegate.core.limits import MAX_PLAN_NAME_BYTES, MAX_SEEDS
from forgegate.core.limits import SEED_MAX as SEED_LIMIT
from forgegate.core.samples import DEFAULT_SAMPLES, Samples, sample_seeds
from forgegate.core.sampling import PLAN_TOP_P, Temperature, TopP
from forgegate.errors import not_one_of
from forgegate.plan.instruments import ENDPOINTS, Instruments, endpoint_names
from forgegate.plan.preflight import LeakAudit, Tiebreak
from forgegate.userfile import Count, MaxTokens, PromptText, Seed, UserFileModel

Role = Literal["control", "candidate", "ship_candidate", "tied_candidate"]
"""lv-hemingway v2 § 2's roles: the control, the ship candidate (the curve's minimum) and the tied candidates the
loss curve cannot separate from it (a ``[tiebreak]`` ranks those two roles); ``candidate`` for a plan without a
ship decision (GLOSS, T_GPT)."""
CANDIDATE_ROLES: tuple[Role, ...] = ("candidate", "ship_candidate", "tied_candidate")
"""The roles a comparison's candidate may have."""
SHIP_ROLES: tuple[Role, ...] = ("ship_candidate", "tied_candidate")
"""The roles the ship decision chooses among (``gate.ship``): present exactly when the plan has a ``[tiebreak]``."""
ARM_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"


def _known_backends() -> tuple[str, ...]:
    import forgegate.backends  # noqa: F401  (importing the package registers every built-in backend)
    from forgegate.backends.base import BACKENDS

    return BACKENDS.names()


class Arm(UserFileModel):
    """One arm: a model (and optional adapter) on a backend, with its role in the comparisons."""

    name: str = Field(pattern=ARM_NAME_PATTERN)
    """The arm's name: comparisons, results and the run store call it this (letters, digits, '_', '.', '-')."""
    backend: str
    """How the model is reached: a registered backend (embedded, llamacpp, ollama, openai, transformers, vllm)."""
    model: str | None = None
    """The model: a name the server serves (ollama, openai), a GGUF path (embedded, llamacpp) or a folder / hub id
    (transformers, vllm)."""
    adapter: str | None = None
    """A LoRA adapter over ``model``: a PEFT folder (transformers, vllm) or a GGUF file (llamacpp); relative to the
    plan's folder."""
    base_urls: tuple[str, ...] = ()
    """The server URLs (ollama, openai only): several spread the arm over replicas; an OpenAI-compatible URL ends in
    /v1."""
    role: Role
    """``control`` (a base or reference arm) or ``candidate`` (a checkpoint the comparisons judge)."""
    prompt_template: PromptText | None = None
    """Optional wrapper around each fixture prompt; must contain '{prompt}' (e.g. a recovery probe)."""
    # Where and how the model runs; each is refused on a backend that does not use it (backends/options.py).
    device: Annotated[str, checked(device_problem)] = "auto"
    """Where the model runs (transformers): auto, cpu, mps, cuda or cuda:N."""
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = "auto"
    """The weights' dtype (transformers): auto, float32, float16 or bfloat16."""
    batch_size: Count | None = None
    """Most requests decoded together (transformers); absent: chosen from the device."""
    n_threads: Count | None = None
    """CPU threads for generation (transformers, llamacpp, embedded); absent: the backend's default."""
    replicas: Count = 1
    """Servers forgegate starts for this arm (llamacpp, vllm); requests are spread over them."""
    tensor_parallel_size: Count = 1
    """GPUs each vLLM server splits the model over (vllm)."""
    pipeline_parallel_size: Count = 1
    """Pipeline stages of each vLLM server (vllm)."""
    distributed_executor_backend: Literal["ray", "mp"] | None = None
    """vLLM's executor across GPUs or nodes: ray or mp (vllm)."""
    max_model_len: Count | None = None
    """The context length the managed server allocates (llamacpp, vllm)."""
    port: int | None = Field(default=None, gt=0, lt=65536)
    """A fixed port for the first managed server (llamacpp, vllm); the next replicas take the ports after it."""
    startup_timeout_s: float = Field(default=600.0, gt=0)
    """Seconds a managed server (llamacpp, vllm) may take to become ready before the run is refused."""

    @field_validator("backend")
    @classmethod
    def _backend_registered(cls, value: str) -> str:
        known = _known_backends()
        if value not in known:
            raise ValueError(not_one_of(value, known))
        return value

    @field_validator("adapter")
    @classmethod
    def _backend_loads_adapters(cls, value: str | None, info: ValidationInfo) -> str | None:
        backend = info.data.get("backend")  # absent when the backend itself was refused
        if value is not None and backend is not None and (why := adapter_refusal(backend)) is not None:
            raise ValueError(why)
        return value

    @field_validator("base_urls")
    @classmethod
    def _urls_are_http(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for url in value:
            if (problem := base_url_problem(url)) is not None:
                raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _options_fit_backend(self) -> Arm:
        for option in (*option_backends(), "base_urls"):
            if option in self.model_fields_set and (why := option_refusal(option, self.backend)) is not None:
                raise ValueError(why)
        return self

    @field_validator("prompt_template")
    @classmethod
    def _template_has_slot(cls, value: str | None) -> str | None:
        if value is not None and "{prompt}" not in value:
            raise ValueError("prompt_template must contain '{prompt}' where the fixture prompt goes")
        return value

    def backend_config(self, resolve: Callable[[str], Path] | None = None,
                       lora_modules: tuple[tuple[str, str], ...] = (), server_seed: int = 0) -> BackendConfig:
        """The backend's config; ``resolve`` makes the adapter path relative to the plan's folder.

        ``lora_modules`` are every adapter over this arm's base (for a server that loads them all);
        this arm's adapter is served under the arm's name.
        """
        adapter = str(resolve(self.adapter)) if resolve is not None and self.adapter is not None else self.adapter
        return BackendConfig(
            model=self.model, adapter=adapter, base_urls=self.base_urls, device=self.device, dtype=self.dtype,
            batch_size=self.batch_size, n_threads=self.n_threads, adapter_name=self.name if adapter else None,
            lora_modules=lora_modules, replicas=self.replicas, tensor_parallel_size=self.tensor_parallel_size,
            pipeline_parallel_size=self.pipeline_parallel_size,
            distributed_executor_backend=self.distributed_executor_backend, max_model_len=self.max_model_len,
            port=self.port, startup_timeout_s=self.startup_timeout_s, server_seed=server_seed)

    def render(self, prompt: str) -> str:
        return self.prompt_template.replace("{prompt}", prompt) if self.prompt_template else prompt


class Fixture(UserFileModel):
    """What is asked: a JSONL of items (``{"id", "prompt"}`` per line) or a GLOSS battery."""

    path: str | None = None
    """A JSONL of items, one ``{"id", "prompt"}`` a line (relative to the plan's folder); or set ``battery``."""
    battery: str | None = None
    """'gloss-v2' for the bundled battery, or a path to a battery JSONL."""

    @model_validator(mode="after")
    def _exactly_one(self) -> Fixture:
        if (self.path is None) == (self.battery is None):
            raise ValueError("set exactly one of 'path' (a JSONL of items) or 'battery'")
        return self


class SeedRange(UserFileModel):
    """``seeds = { first = 1, count = 64 }``: the seeds first, first+1, ..., first+count-1."""

    first: Seed
    """The first seed."""
    count: int = Field(ge=1, le=MAX_SEEDS)
    """How many consecutive seeds, from ``first``."""

    @model_validator(mode="after")
    def _last_is_a_seed(self) -> SeedRange:
        last = self.first + self.count - 1
        if last > SEED_LIMIT:
            raise ValueError(f"the range ends at seed {last}, past the largest seed {SEED_LIMIT}: lower 'first'")
        return self


def _seeds_form(value: Any) -> str:
    """Which of the two spellings of ``seeds`` was written, so an error speaks about that one only."""
    return "SeedRange" if isinstance(value, dict | SeedRange) else "SeedList"


Seeds = Annotated[Annotated[tuple[Seed, ...], Tag("SeedList")] | Annotated[SeedRange, Tag("SeedRange")],
                  Discriminator(_seeds_form)]


class Sampling(UserFileModel):
    """Sampling options sent with every request (the backend caps ``max_tokens`` on the client side)."""

    temperature: Temperature | None = None
    """Sampling temperature (0: greedy); absent: not sent, the model's own served sampling applies (GLOSS v2's
    procedure; any value set here is recorded as a departure from it)."""
    top_p: TopP | None = None
    """Nucleus sampling p (above 0, at most 1); absent: 1 when a temperature is set, else not sent."""

    @property
    def sent_top_p(self) -> float | None:
        """The top_p every request sends: as written; 1 (no nucleus cut) when only a temperature is set; None (as
        served) when neither is."""
        if self.top_p is not None or self.temperature is None:
            return self.top_p
        return PLAN_TOP_P
    max_tokens: MaxTokens
    """The hard cap on every answer, enforced on the client side."""
    stop: tuple[str, ...] = ()
    """Stop strings sent with every request."""
    chat: bool = True
    """Send through the chat API / template (true) or as a raw completion prompt (false)."""
    system: PromptText | None = None
    """A system prompt for chat requests (absent: none)."""


class PlanComparison(UserFileModel):
    """One pre-registered comparison: control vs candidate, and its one primary endpoint."""

    control: str
    """The control arm's name."""
    candidate: str
    """The candidate arm's name."""
    primary: str
    """'<instrument>.<endpoint>', e.g. 'voice.delta_gap' or 'semantic.REC_GAIN'."""

    @field_validator("primary")
    @classmethod
    def _known_endpoint(cls, value: str) -> str:
        names = endpoint_names()
        if value not in names:
            raise ValueError(not_one_of(value, names))
        return value


class Plan(UserFileModel):
    """A pre-registered plan. Everything a verdict depends on is here, frozen by the lock."""

    name: str = Field(min_length=1)
    """Also the run's file name (``plan-<name>.sqlite``): at most ``MAX_PLAN_NAME_BYTES`` bytes of UTF-8."""
    author: str | None = None
    """The author whose voice is measured; required when the voice instrument is declared."""
    description: str | None = None
    """Free text on what the plan tests; shown in reports, not used by any rule."""
    seeds: Seeds
    """The seeds: a list (``[1, 2, 3]``) or a range (``{ first = 1, count = 64 }``); each is a full pass over every arm
    and item."""
    samples: Samples = DEFAULT_SAMPLES
    """Answers per item and seed, each under its own recorded seed (issue 47; ``forgegate eval --samples``): sample 1
    is the seed itself, the others seeds derived from it. The gloss instrument gates each sample's replicate and
    gives an arm PASS only when all agree (HOLD when they disagree). 1: one answer per seed."""
    sampling: Sampling
    """``[sampling]``: the sampling options every request is sent with."""
    fixture: Fixture
    """``[fixture]``: what is asked (a JSONL of items or a GLOSS battery)."""
    arms: tuple[Arm, ...] = Field(min_length=1)
    """``[[arms]]``: the models compared, each a backend and a model."""
    instruments: Instruments
    """``[instruments]``: what is measured on the answers, one sub-table per instrument."""
    comparisons: tuple[PlanComparison, ...] = ()
    """``[[comparisons]]``: the pre-registered control vs candidate comparisons and their primary endpoints."""
    tiebreak: Tiebreak | None = None
    """How the ship candidate and the tied candidates are separated (``plan.preflight``); required exactly when the
    arms have those roles."""
    leak_audit: LeakAudit | None = None
    """The leak audit on the record: ``plan lock`` refuses a plan whose audit found a leak or failed a control."""

    @field_validator("seeds")
    @classmethod
    def _seeds_nonempty_unique(cls, value: tuple[int, ...] | SeedRange) -> tuple[int, ...] | SeedRange:
        if isinstance(value, tuple):
            if not value:
                raise ValueError("at least one seed")
            if len(set(value)) != len(value):
                raise ValueError("seeds repeat")
            if len(value) > MAX_SEEDS:
                raise ValueError(f"{len(value)} seeds: at most {MAX_SEEDS} (each is a generation pass over every "
                                 "arm and item)")
        return value

    @field_validator("name")
    @classmethod
    def _name_fits_a_file_name(cls, value: str) -> str:
        size = len(value.encode("utf-8"))
        if size > MAX_PLAN_NAME_BYTES:
            raise ValueError(f"the plan's name is {size} bytes long; it names the run's files, so shorten it to "
                             f"at most {MAX_PLAN_NAME_BYTES}")
        return value

    def request_seeds(self) -> tuple[int, ...]:
        """The seeds requests are sent with: each seed's ``samples`` sample seeds (the seeds themselves at 1)."""
        if self.samples == 1:
            return self.seed_list()
        return tuple(dict.fromkeys(s for seed in self.seed_list() for s in sample_seeds(seed, self.samples)))

    def seed_list(self) -> tuple[int, ...]:
        if isinstance(self.seeds, SeedRange):
            return tuple(range(self.seeds.first, self.seeds.first + self.seeds.count))
        return self.seeds

    def arm(self, name: str) -> Arm:
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise KeyError(name)

    def ship_arms(self) -> tuple[str, ...]:
        """The ship candidate first, then the tied candidates, in the plan's order (empty: no ship decision)."""
        return (tuple(a.name for a in self.arms if a.role == "ship_candidate")
                + tuple(a.name for a in self.arms if a.role == "tied_candidate"))

    def primary_instrument(self, comparison: PlanComparison) -> str:
        return comparison.primary.split(".", 1)[0]


__all__ = ["CANDIDATE_ROLES", "ENDPOINTS", "SHIP_ROLES", "Arm", "PlanComparison", "Fixture", "Plan", "Role", "Sampling",
           "SeedRange"]
