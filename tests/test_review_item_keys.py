"""A review decision names one answer: an item id that several awaiting answers share is refused (issue 38).

``record_review`` takes an item id or a full request key. When one item id matches several request keys that await
a decision (the item answered under two seeds), recording on "the first" would decide an answer the reviewer may
not have read, so it is refused with the keys to choose from, and nothing is stored.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
from view_helpers import GOOD, make_run

from forgegate.core.records import Completion
from forgegate.errors import UsageError
from forgegate.pipeline.review import record_review, review_states
from forgegate.store import RunStore, run_path


def test_an_item_id_naming_several_awaiting_answers_is_refused_and_its_request_key_is_not(tmp_path: Path) -> None:
    store = tmp_path / "store"
    path = run_path(make_run(tmp_path / "in", store, GOOD), store)
    (first,) = [s.row for s in review_states(path) if s.row.request_key == "model/cold/0"]
    fields = {k: v for k, v in asdict(first).items() if k in Completion.__dataclass_fields__}
    again = Completion(**(fields | {"text": first.response}))
    with RunStore.open(path, create=False) as opened:  # the same item answered again under another seed
        opened.record(request_key="model/cold/1", arm=first.arm, item_id=first.item_id, seed=1,
                      request=first.request.model_copy(update={"seed": 1}), completion=again, error=None, attempts=1)
    keys = sorted(s.row.request_key for s in review_states(path) if s.row.item_id == first.item_id)
    assert keys == ["model/cold/0", "model/cold/1"]
    with pytest.raises(UsageError) as err:
        record_review(path, first.item_id, passed=True, reviewer="bob", note=None)
    assert f"item '{first.item_id}'" in str(err.value) and "names 2 answers that await a review" in str(err.value)
    assert "model/cold/0, model/cold/1" in str(err.value) and "give its request key" in str(err.value)
    with RunStore.open(path, create=False) as opened:
        assert opened.reviews() == {}  # nothing recorded on either answer
    record_review(path, "model/cold/1", passed=False, reviewer="bob", note=None)
    with RunStore.open(path, create=False) as opened:
        assert opened.reviews() == {"model/cold/1": ("fail", "bob")}
