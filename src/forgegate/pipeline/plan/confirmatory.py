"""What ``confirmatory = true`` requires of a plan (T_GPT v0.8.1), checked at ``plan check``, ``plan lock`` and ``run``.

A confirmatory collection on exploratory footing is not confirmatory. The plan is refused, at the line of
the field at fault, unless: the codebook was frozen under an entailment judge ("bidirectional entailment as the
primary semantic-equivalence criterion"; MiniLM cosine is the sensitivity analysis), under the strict rule (not
``--loose``) and with its embedding sensitivity run on record; the support floor, its
sensitivity analysis and the resamples are T_GPT's values or stricter; the blinded human validation is declared with
its minimum and its sheet is complete before the lock (the development phase); Q_task is declared, and Q_fact on
every task the plan declares factual (``factual_tasks``); the comparison's primary is the experiment's one primary
endpoint; E3's budgets are "matched" (``MATCHED_BUDGET``) and summed from the run store (``cost_arms``); the
recovery arm runs B's model with probes naming no frozen cluster; and the plan names its study author, against whom the
relevance adjudication is checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from forgegate.core.experiments import EXPERIMENT_NAMES, RECURRENCE_ENDPOINT, primary_endpoint
from forgegate.errors import InputError
from forgegate.jsonio import parse_json_strict, read_text_or_input_error
from forgegate.plan import LoadedPlan, SemanticParams
from forgegate.semantic.bootstrap import N_RESAMPLES, BootstrapSettings
from forgegate.semantic.codebook import Codebook, load_codebook
from forgegate.semantic.entailment import JUDGES
from forgegate.semantic.formulas import MINIMUM_COUNT, SENSITIVITY_TAUS, TAU_SUPPORT
from forgegate.semantic.human_validation import score_validation
from forgegate.semantic.relevance import author_problem
from forgegate.semantic.relevance_record import load_relevance
from forgegate.semantic.topology import MATCHED_BUDGET

WHERE = ("instruments", "semantic")


def check_confirmatory(loaded: LoadedPlan, contents: Mapping[str, bytes] | None = None) -> None:
    """Refuse a confirmatory plan (file:line of the field) that is not T_GPT's confirmatory; nothing otherwise.
    ``contents``: the bytes the lock check read, by the path as the plan writes it (a run checks the codebook,
    the relevance record and the validation key it scores, not a second read: the bytes scored are the bytes
    checked)."""
    params = loaded.plan.instruments.semantic
    if params is None or not params.confirmatory:
        return
    _declared_values(loaded, params)
    assert params.codebook is not None  # the schema requires it when confirmatory
    book = load_codebook(loaded.resolve(params.codebook), require_frozen=True,
                         raw=_read(contents, params.codebook))
    judge = str(book.rule.judge.get("judge"))
    if judge not in JUDGES.names():
        raise loaded.error((*WHERE, "codebook"), f"the codebook was frozen under the {judge!r} judge, which is "
                           "T_GPT's exploratory sensitivity criterion; a confirmatory codebook is frozen under "
                           f"bidirectional entailment ({', '.join(JUDGES.names())})",
                           hint="freeze the codebook with --judge nli (or llm), or set confirmatory = false")
    _development_rule(loaded, book)
    _primaries(loaded, params)
    _order(loaded, params, contents)
    _recovery_arm(loaded, params, book)
    _validation_complete(loaded, params, book, contents)
    _adjudication(loaded, params, contents)


def _development_rule(loaded: LoadedPlan, book: Codebook) -> None:
    """T_GPT v0.8.1's development phase: "using bidirectional entailment as the primary semantic-equivalence
    criterion, embedding clustering as sensitivity analysis": the rule is strict (entailment both ways; ``--loose``
    accepts one way plus neutral the other), and the embedding sensitivity run is on the codebook's record."""
    where = (*WHERE, "codebook")
    if not book.rule.strict:
        raise loaded.error(where, "the codebook's assignment rule is not strict bidirectional entailment (it was "
                           "clustered with --loose: entailment one way and neutral the other counts as the same "
                           "meaning); T_GPT's primary criterion is \"bidirectional entailment\"",
                           hint="cluster the development samples again without --loose and freeze that codebook, "
                                "or set confirmatory = false")
    if book.embedding_sensitivity is None:
        raise loaded.error(where, "the codebook records no embedding sensitivity run: T_GPT builds it \"using "
                           "bidirectional entailment as the primary semantic-equivalence criterion, embedding "
                           "clustering as sensitivity analysis\"",
                           hint="cluster the development samples again with the embedding run on (forgegate "
                                "semantic cluster without --no-embedding) and freeze that codebook, or set "
                                "confirmatory = false")


def _declared_values(loaded: LoadedPlan, params: SemanticParams) -> None:
    """Study author, support floor, sensitivity, resamples, Q_task / Q_fact, E3's budget: declared, T_GPT's or
    stricter."""
    if not (params.study_author or "").strip():
        raise loaded.error(WHERE, "a confirmatory plan names its study author (study_author), against whom the "
                           "relevance adjudication is checked (T_GPT: author_primary_annotation_forbidden)",
                           hint='study_author = "<who designed this study>"')
    if params.tau_support < TAU_SUPPORT:
        raise loaded.error((*WHERE, "tau_support"), f"tau_support {params.tau_support:g} is looser than T_GPT's "
                           f"{TAU_SUPPORT:g}: a confirmatory plan uses T_GPT's value or a stricter (larger) one")
    if params.minimum_count < MINIMUM_COUNT:
        raise loaded.error((*WHERE, "minimum_count"), f"minimum_count {params.minimum_count} is below T_GPT's "
                           f"{MINIMUM_COUNT}, which \"Prevents a single accidental generation from defining "
                           "confirmatory support\"")
    missing = [t for t in SENSITIVITY_TAUS if t not in params.sensitivity]
    if missing:
        raise loaded.error((*WHERE, "sensitivity"), f"sensitivity lacks {', '.join(f'{t:g}' for t in missing)}: "
                           "\"All primary results include the preregistered support-threshold sensitivity analysis\"",
                           hint=f"sensitivity = [{', '.join(f'{t:g}' for t in SENSITIVITY_TAUS)}]")
    if params.bootstrap_resamples < N_RESAMPLES:
        raise loaded.error((*WHERE, "bootstrap_resamples"), f"{params.bootstrap_resamples} resamples: T_GPT's "
                           f"confirmatory intervals use {N_RESAMPLES}")
    if params.q_task is None:
        raise loaded.error(WHERE, "a confirmatory plan declares its Q_task guardrail before confirmation "
                           "([instruments.semantic.q_task] with 'margin' and a scorer per task)")
    if params.q_task.margin is None:
        raise loaded.error((*WHERE, "q_task"), "the Q_task guardrail needs its 'margin' (judged on its interval)")
    _q_fact(loaded, params)
    _e3_budget(loaded, params)


def _q_fact(loaded: LoadedPlan, params: SemanticParams) -> None:
    """Which tasks have facts is declared (``factual_tasks``, ``[]`` for none); Q_fact covers those, with a margin.

    T_GPT v0.8.1: Q_fact is the "Factuality measure used only on tasks with externally checkable factual claims",
    and E1's endpoint holds "Q_task/Q_fact guardrails"; "defined per task before confirmation" like Q_task.
    """
    if params.factual_tasks is None:
        raise loaded.error(WHERE, "a confirmatory plan says which tasks make externally checkable factual claims "
                           "(factual_tasks; [] when none does): T_GPT's Q_fact guardrail is required on those",
                           hint='factual_tasks = ["<task id>", ...]   # or [] when no task has facts')
    if not params.factual_tasks:
        return
    if params.q_fact is None:
        raise loaded.error((*WHERE, "factual_tasks"), f"task(s) {', '.join(params.factual_tasks[:5])} make factual "
                           "claims, and the plan declares no Q_fact guardrail for them",
                           hint="[instruments.semantic.q_fact] with 'margin' and a scorer per factual task")
    if params.q_fact.margin is None:
        raise loaded.error((*WHERE, "q_fact"), "the Q_fact guardrail needs its 'margin' (judged on its interval)")
    uncovered = [t for t in params.factual_tasks if t not in params.q_fact.tasks]
    if uncovered:
        raise loaded.error((*WHERE, "q_fact", "tasks"), f"factual task(s) {', '.join(uncovered[:5])} have no Q_fact "
                           "scorer: Q_fact is required wherever the task has facts",
                           hint=f"add [instruments.semantic.q_fact.tasks.{uncovered[0]}]")


def _e3_budget(loaded: LoadedPlan, params: SemanticParams) -> None:
    """E3's budgets are T_GPT's "matched total-token budget", with the token totals taken from the run store."""
    if params.aggregation is None:
        return
    if params.aggregation.budget_tolerance > MATCHED_BUDGET:
        raise loaded.error((*WHERE, "aggregation", "budget_tolerance"),
                           f"budget_tolerance {params.aggregation.budget_tolerance:g} is not T_GPT's \"matched "
                           f"total-token budget\": a confirmatory E3 allows at most {MATCHED_BUDGET:g}")
    if params.aggregation.cost_arms is None:
        raise loaded.error((*WHERE, "aggregation"), "a confirmatory E3 takes each aggregate's token total from the "
                           "run store, not from the aggregates file: name the arms whose stored requests each "
                           "compared aggregate cost (cost_arms)",
                           hint=f'cost_arms = {{ {params.aggregation.control} = ["<branch arm>"], '
                                f'{params.aggregation.candidate} = ["<branch arm>", "<aggregator arm>"] }}')


def _primaries(loaded: LoadedPlan, params: SemanticParams) -> None:
    """Each experiment has one primary endpoint, of T_GPT's kind (E4: the structural recurrence only)."""
    if params.experiment == "E4_R_META" and params.primary_endpoint != RECURRENCE_ENDPOINT:
        raise loaded.error((*WHERE, "primary_endpoint"), f"E4_R_META's confirmatory primary is the blinded "
                           f"structural recurrence ({RECURRENCE_ENDPOINT}); {params.primary_endpoint} is a proxy",
                           hint=f'primary_endpoint = "{RECURRENCE_ENDPOINT}" with [instruments.semantic.recurrence]')
    primary = primary_endpoint(params.experiment, params.primary_endpoint)
    for index, comp in enumerate(loaded.plan.comparisons):
        instrument, endpoint = comp.primary.split(".", 1)
        if instrument == "semantic" and endpoint != primary:
            raise loaded.error(("comparisons", index, "primary"), f"{params.experiment}'s one primary endpoint is "
                               f"{primary}; a comparison naming {comp.primary} would make a second primary",
                               hint=f'primary = "semantic.{primary}"')


def _recovery_arm(loaded: LoadedPlan, params: SemanticParams, book: Codebook) -> None:
    """R runs B's model and adapter, with generic probes that name no frozen cluster label or exemplar."""
    if params.recovery is None:
        return
    plan = loaded.plan
    recovery, contracted = plan.arm(params.recovery), plan.arm(params.contracted)
    index = next(i for i, a in enumerate(plan.arms) if a.name == recovery.name)
    for field in ("backend", "model", "adapter"):
        if getattr(recovery, field) != getattr(contracted, field):
            raise loaded.error(("arms", index, field), f"the recovery arm '{recovery.name}' runs {field} "
                               f"{getattr(recovery, field)!r}, not condition B's ({getattr(contracted, field)!r}): "
                               "R is B under the generic recovery probes")
    probe = (recovery.prompt_template or "").casefold()
    for task, entry in book.tasks.items():
        for cluster in entry.clusters:
            for text in (cluster.label, *cluster.exemplars):
                if text.strip() and text.strip().casefold() in probe:
                    raise loaded.error(("arms", index, "prompt_template"), f"the recovery probe names frozen "
                                       f"cluster {cluster.id} of task {task} ({text.strip()[:60]!r}): T_GPT's "
                                       "recovery probes \"do not name missing cluster identities\"")


def _read(contents: Mapping[str, bytes] | None, written: str) -> bytes | None:
    """The bytes the lock check read for a file the plan names (None: none given, the file is read here)."""
    return None if contents is None else contents.get(written)


def _validation_complete(loaded: LoadedPlan, params: SemanticParams, book: Codebook,
                         contents: Mapping[str, bytes] | None) -> None:
    """The blinded human validation belongs to the development phase: declared, with its minimum, sheet complete."""
    declared = params.validation
    if declared is None or declared.min_agreement is None:
        raise loaded.error((*WHERE, "validation") if declared else WHERE, "a confirmatory plan declares the "
                           "codebook's blinded human validation with its minimum agreement (min_agreement), done "
                           "in the development phase, before the lock")
    sheet = loaded.resolve(declared.sheet)
    if not sheet.is_file():
        raise loaded.error((*WHERE, "validation", "sheet"), f"{declared.sheet} not found: a confirmatory plan locks "
                           "only once its blinded validation sheet is filled")
    ids = {c.id for task in book.tasks.values() for c in task.clusters}
    score = score_validation(sheet, loaded.resolve(declared.key),
                             BootstrapSettings(seed=params.bootstrap_seed, n_resamples=params.bootstrap_resamples), ids,
                             key_raw=_read(contents, declared.key), sheet_raw=_read(contents, declared.sheet))
    if not score["complete"]:
        raise loaded.error((*WHERE, "validation", "sheet"), f"{len(score['unlabelled_rows'])} rows of "
                           f"{declared.sheet} have no same_meaning label: a confirmatory plan locks only once its "
                           "blinded validation sheet is complete")


def _adjudication(loaded: LoadedPlan, params: SemanticParams, contents: Mapping[str, bytes] | None) -> None:
    """The adjudicated relevance record, on the frozen codebook, with neither primary annotator the study author."""
    assert params.study_author is not None
    if params.relevance is None:
        raise loaded.error(WHERE, "a confirmatory plan names the adjudicated relevance record (relevance)",
                           hint="forgegate semantic relevance writes it from the two annotators' sheets")
    record = load_relevance(loaded.resolve(params.relevance), _read(contents, params.relevance)).record
    where = (*WHERE, "relevance")
    if record is None:
        raise loaded.error(where, "a bare {cluster, relevant} file is not an adjudication: a confirmatory plan needs "
                           "the record forgegate semantic relevance writes (annotators, adjudicator, kappa)")
    if record.header.codebook_hash is None:
        raise loaded.error(where, "the relevance record names no codebook_hash, so nothing shows it was annotated "
                           "under the frozen codebook")
    for annotator in record.header.annotators:
        problem = author_problem(annotator.name, params.study_author)
        if problem is not None:
            raise loaded.error(where, f"the study author {params.study_author!r} is a primary annotator: {problem}")


def _order(loaded: LoadedPlan, params: SemanticParams, contents: Mapping[str, bytes] | None) -> None:
    """Every earlier experiment of T_GPT's order is confirmed (its confirmatory result named), or the plan says why."""
    earlier = EXPERIMENT_NAMES[:EXPERIMENT_NAMES.index(params.experiment)]
    if not earlier:
        return
    order = params.order
    if order is None:
        raise loaded.error(WHERE, f"{params.experiment} comes after {', '.join(earlier)} in T_GPT's experiment order "
                           "(E1 -> E2 -> E3 -> E4): a confirmatory run names their confirmations or says why not",
                           hint='[instruments.semantic.order] study = "...", confirmed = { E1_STAGE = "e1.json" } '
                                'or unconfirmed_because = "..."')
    confirmed = {str(name): path for name, path in order.confirmed.items()}
    for experiment in earlier:
        path = confirmed.get(experiment)
        if path is None:
            if order.unconfirmed_because is None:
                raise loaded.error((*WHERE, "order"), f"study {order.study!r}: {experiment} is not confirmed, and "
                                   f"{params.experiment} comes after it; name its confirmatory result in "
                                   "'confirmed', or say why in 'unconfirmed_because'")
            continue
        where = (*WHERE, "order", "confirmed", experiment)
        try:
            raw = _read(contents, path)
            text = (read_text_or_input_error(loaded.resolve(path), what="confirmatory result") if raw is None
                    else raw.decode("utf-8"))
            result = parse_json_strict(text)
            metrics = result["semantic"]["metrics"]
            mode, named = metrics["mode"], metrics["experiment"]
        except (InputError, OSError, ValueError, KeyError, TypeError) as exc:
            raise loaded.error(where, f"{path} is not a forgegate run --json result with a semantic table ({exc})",
                               hint="name the --json result of the earlier experiment's confirmatory run") from None
        if named != experiment or mode != "confirmatory" or result.get("gate") in ("INVALID", "INCOMPLETE"):
            raise loaded.error(where, f"{path} is not {experiment}'s confirmation: its table is {mode} "
                               f"{named or '(no experiment)'}, gate {result.get('gate')}")
