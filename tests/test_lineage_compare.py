"""Paired regression check between two runs: calls, pairing, clusters, Holm, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from lineage_helpers import category, item, passes, result, run_cli
from scipy.stats import bootstrap
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

from forgegate.core.verdict import Gate
from forgegate.lineage import NotComparableError, compare_runs, parse_run_scores

RESAMPLES = 2000


def _compare(old: dict, new: dict, seed: int = 0):  # type: ignore[no-untyped-def]
    return compare_runs(parse_run_scores(old, "old.json"), parse_run_scores(new, "new.json"), seed=seed,
                        n_resamples=RESAMPLES, old_label="v1", new_label="v2")


def _by_name(comparison):  # type: ignore[no-untyped-def]
    return {c.category: c for c in comparison.categories}


def _known_pair() -> tuple[dict, dict]:
    """LX-A improves 20 -> 36 of 40, LX-B regresses 36 -> 20 of 40, LX-C stays 30 (3 lost, 3 gained)."""
    old = (category("LX-A", passes(20, 20)) + category("LX-B", passes(36, 4))
           + category("LX-C", passes(27, 3) + [True] * 3 + [False] * 7))
    new = (category("LX-A", passes(36, 4)) + category("LX-B", passes(20, 20))
           + category("LX-C", passes(27, 3) + [False] * 3 + [True] * 3 + [False] * 4))
    return result(old, run_id="old"), result(new, run_id="new")


def test_known_differences_give_improved_regressed_unchanged_and_fail() -> None:
    comparison = _compare(*_known_pair())
    cats = _by_name(comparison)
    assert cats["LX-A"].call == "improved"
    assert cats["LX-B"].call == "regressed"
    assert cats["LX-C"].call == "unchanged"
    assert cats["LX-B"].score_old == pytest.approx(0.9) and cats["LX-B"].score_new == pytest.approx(0.5)
    assert cats["LX-B"].difference.difference == pytest.approx(-0.4)
    assert cats["LX-B"].difference.ci_high is not None and cats["LX-B"].difference.ci_high < 0
    assert cats["LX-C"].difference.ci_low < 0 < cats["LX-C"].difference.ci_high  # type: ignore[operator]
    assert (cats["LX-C"].mcnemar.lost, cats["LX-C"].mcnemar.gained) == (3, 3)  # type: ignore[union-attr]
    assert [r.name for r in comparison.regressions] == ["LX-B"]
    assert comparison.gate == Gate.FAIL
    numbers = next(r for r in comparison.model().to_json()["reasons"] if r["rule"] == "regression:LX-B")["numbers"]
    assert numbers["difference"] == pytest.approx(-0.4) and numbers["ci_high"] < 0  # the reason carries its numbers


def test_no_regression_passes_with_its_reason() -> None:
    old, new = _known_pair()
    comparison = _compare(old, old | {"run_id": "again"})
    assert comparison.gate == Gate.PASS
    assert {c.call for c in comparison.categories} == {"unchanged"}
    assert comparison.verdict.reasons[0].rule == "no-regression"


def test_paired_test_detects_a_drop_an_unpaired_z_test_misses() -> None:
    # 60 items: 30 pass before; after, 6 of those fail and nothing else changes.
    old = category("LX-STOP", passes(30, 30))
    new = category("LX-STOP", passes(24, 36))
    _, unpaired_p = proportions_ztest([30, 24], [60, 60])
    assert unpaired_p > 0.05  # what lm-eval-harness's comparator would conclude: no difference
    comparison = _compare(result(old), result(new))
    stop = _by_name(comparison)["LX-STOP"]
    assert (stop.mcnemar.lost, stop.mcnemar.gained) == (6, 0)  # type: ignore[union-attr]
    assert stop.mcnemar.pvalue == pytest.approx(2 * 0.5**6)  # type: ignore[union-attr]
    assert stop.call == "regressed"
    assert comparison.gate == Gate.FAIL


def test_items_pair_by_id_and_seed_not_by_position() -> None:
    old = [item("LX-A-00", "LX-A", True, seed=1), item("LX-A-00", "LX-A", False, seed=2),
           item("LX-A-01", "LX-A", False, seed=1), item("LX-A-01", "LX-A", True, seed=2)]
    new = list(reversed(old))
    comparison = _compare(result(old), result(new))
    lx_a = _by_name(comparison)["LX-A"]
    assert (lx_a.mcnemar.lost, lx_a.mcnemar.gained) == (0, 0)  # type: ignore[union-attr]
    assert lx_a.difference.difference == 0
    assert comparison.gate == Gate.PASS


def _clustered_runs() -> tuple[dict, dict]:
    """10 items x 8 seeds: 3 items regress on every seed, 1 improves on every seed, 6 unchanged."""
    old, new = [], []
    for i in range(10):
        for seed in range(8):
            before, after = {0: (True, False), 1: (True, False), 2: (True, False), 3: (False, True)}.get(
                i, (True, True))
            old.append(item(f"LX-A-{i:02d}", "LX-A", before, seed=seed))
            new.append(item(f"LX-A-{i:02d}", "LX-A", after, seed=seed))
    return result(old), result(new)


def test_several_seeds_resample_items_not_samples() -> None:
    comparison = _compare(*_clustered_runs())
    lx_a = _by_name(comparison)["LX-A"]
    assert (lx_a.difference.n_clusters, lx_a.difference.n_pairs) == (10, 80)
    assert lx_a.difference.difference == pytest.approx(-0.2)
    # 10 independent items cannot show this drop: the CI over items includes 0 ...
    assert lx_a.difference.ci_low < 0 < lx_a.difference.ci_high  # type: ignore[operator]
    assert lx_a.call == "unchanged"
    assert comparison.mcnemar_clustered
    # ... whereas treating the 80 samples as independent would (wrongly) call a regression.
    samples = np.array([-1.0] * 24 + [1.0] * 8 + [0.0] * 48)
    naive = bootstrap((samples,), np.mean, n_resamples=RESAMPLES, rng=np.random.default_rng(0))
    assert naive.confidence_interval.high < 0


def test_bootstrap_is_seeded() -> None:
    old, new = _clustered_runs()
    a, b = _compare(old, new, seed=7), _compare(old, new, seed=7)
    assert a.model() == b.model()


def test_holm_adjusts_mcnemar_p_values_across_categories() -> None:
    # LX-A: 8 lost / 0 gained; LX-B: 6 lost / 1 gained; LX-C: 2 lost / 2 gained (20 items each).
    old = (category("LX-A", passes(20, 0)) + category("LX-B", passes(19, 1))
           + category("LX-C", passes(10, 10)))
    new = (category("LX-A", passes(12, 8)) + category("LX-B", passes(13, 6) + [True])
           + category("LX-C", passes(8, 2) + [True, True] + [False] * 8))
    comparison = _compare(result(old), result(new))
    cats = _by_name(comparison)
    tables = {"LX-A": [[12, 8], [0, 0]], "LX-B": [[13, 6], [1, 0]], "LX-C": [[8, 2], [2, 8]]}
    raw = [mcnemar(tables[c], exact=True).pvalue for c in ("LX-A", "LX-B", "LX-C")]
    _, expected, _, _ = multipletests(raw, method="holm")
    for name, p_raw, p_holm in zip(("LX-A", "LX-B", "LX-C"), raw, expected, strict=True):
        assert cats[name].mcnemar.pvalue == pytest.approx(p_raw)  # type: ignore[union-attr]
        assert cats[name].p_holm == pytest.approx(p_holm)
    assert cats["LX-A"].p_holm == pytest.approx(3 * raw[0])  # the smallest p is multiplied by 3
    assert comparison.overall.p_holm is None


def test_new_failure_mode_is_a_regression_whatever_the_statistics() -> None:
    old = category("LX-IDENTITY", passes(30, 10))
    new = category("LX-IDENTITY", passes(30, 9)) + [item("LX-IDENTITY-39", "LX-IDENTITY", False,
                                                         failure_modes=["IDENTITY_LOOP"])]
    comparison = _compare(result(old), result(new))
    assert _by_name(comparison)["LX-IDENTITY"].call == "unchanged"
    assert [(r.name, r.kind) for r in comparison.regressions] == [("IDENTITY_LOOP", "failure_mode")]
    assert comparison.new_failure_modes == {"IDENTITY_LOOP": ("LX-IDENTITY-39#seed=0",)}
    assert comparison.gate == Gate.FAIL


def test_errored_items_make_the_comparison_incomplete() -> None:
    old = category("LX-A", passes(10, 0))
    new = category("LX-A", [True] * 9 + [None])
    comparison = _compare(result(old), result(new, gate="INCOMPLETE"))
    assert comparison.gate == Gate.INCOMPLETE
    assert comparison.errored == ("LX-A-09#seed=0 (v2)",)
    assert _by_name(comparison)["LX-A"].difference.n_pairs == 9


def test_unpaired_items_are_reported_and_make_it_incomplete() -> None:
    old = category("LX-A", passes(10, 0))
    new = category("LX-A", passes(9, 0))
    comparison = _compare(result(old), result(new))
    assert comparison.unpaired_old == ("LX-A-09#seed=0",) and comparison.unpaired_new == ()
    assert comparison.gate == Gate.INCOMPLETE
    assert comparison.model().to_json()["unpaired"]["old_only"] == ["LX-A-09#seed=0"]


@pytest.mark.parametrize(("field", "message"), [("battery_sha", "battery sha256 differs"),
                                                  ("gate_sha", "gate config sha256 differs")])
def test_different_battery_or_gate_config_is_refused(field: str, message: str) -> None:
    old, _ = _known_pair()
    new = result(old["items"], **{field: "d" * 64})  # type: ignore[arg-type]
    with pytest.raises(NotComparableError, match="not comparable") as raised:
        _compare(old, new)
    assert message in str(raised.value)


def test_cli_compare_writes_json_and_exits_with_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _known_pair()
    (tmp_path / "a.json").write_text(json.dumps(old))
    (tmp_path / "b.json").write_text(json.dumps(new))
    code, out, _ = run_cli(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                            "--json", str(tmp_path / "diff.json"), "--resamples", "500"], capsys, monkeypatch)
    diff = json.loads((tmp_path / "diff.json").read_text())
    assert code == 1 and diff["gate"] == "FAIL"
    assert [r["name"] for r in diff["regressions"]] == ["LX-B"]
    assert {c["category"]: c["call"] for c in diff["categories"]} == {
        "LX-A": "improved", "LX-B": "regressed", "LX-C": "unchanged"}
    assert "GATE: FAIL" in out


def test_cli_compare_refuses_non_comparable_runs_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, _ = _known_pair()
    (tmp_path / "a.json").write_text(json.dumps(old))
    (tmp_path / "b.json").write_text(json.dumps(result(old["items"], battery_sha="e" * 64)))
    code, _, err = run_cli(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                            "--json", str(tmp_path / "diff.json")], capsys, monkeypatch)
    assert code == 2
    assert "not comparable" in err and "battery sha256 differs" in err
    assert not (tmp_path / "diff.json").exists()


def test_cli_compare_names_a_missing_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, _ = _known_pair()
    broken = {k: v for k, v in old.items() if k != "gate_config"}
    (tmp_path / "a.json").write_text(json.dumps(old))
    (tmp_path / "b.json").write_text(json.dumps(broken))
    code, _, err = run_cli(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")], capsys, monkeypatch)
    assert code == 2 and "gate_config" in err


def test_decline_spread_over_categories_is_an_overall_regression() -> None:
    # Five categories each lose 2 of 20 items: no category alone excludes 0, together they do.
    names = [f"LX-{c}" for c in "ABCDE"]
    old = [it for n in names for it in category(n, passes(20, 0))]
    new = [it for n in names for it in category(n, passes(18, 2))]
    comparison = _compare(result(old), result(new))
    assert {c.call for c in comparison.categories} == {"unchanged"}
    assert comparison.overall.call == "regressed"
    assert [(r.name, r.kind) for r in comparison.regressions] == [("overall", "overall")]
    assert comparison.gate == Gate.FAIL


def test_errored_item_marked_not_passed_is_still_an_error_not_a_lost_pass() -> None:
    # The eval writes "passed": false next to "score": null for a request that failed for good.
    old = category("LX-A", passes(10, 0))
    new = category("LX-A", passes(9, 0)) + [item("LX-A-09", "LX-A", None) | {"passed": False,
                                                                            "finish": "missing"}]
    comparison = _compare(result(old), result(new))
    lx_a = _by_name(comparison)["LX-A"]
    assert lx_a.mcnemar.lost == 0  # type: ignore[union-attr]
    assert comparison.errored == ("LX-A-09#seed=0 (v2)",)
    assert comparison.gate == Gate.INCOMPLETE


def test_same_items_under_different_seeds_do_not_pair_and_the_reason_says_why() -> None:
    old = category("LX-A", passes(10, 0), seed=0)
    new = category("LX-A", passes(10, 0), seed=1)
    comparison = _compare(result(old), result(new))
    assert comparison.gate == Gate.INCOMPLETE
    unpaired = next(r for r in comparison.verdict.reasons if r.rule == "unpaired-items")
    assert "different seeds: [0] vs [1]" in unpaired.detail
