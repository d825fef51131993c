"""workbench.calltree: the call-tree arithmetic the profile readers and RegionPredictor share (hand-computed)."""

import numpy as np
import pandas as pd
import pytest

from workbench.calltree import exclusive_from_inclusive, inclusive_from_exclusive, time_metric
from workbench.errors import ValidationError


def _tree(values: dict, kind: str, profile: str = "a") -> pd.DataFrame:
    regions = list(values)
    return pd.DataFrame({"profile": profile, "region": regions,
                         "parent": [r.rsplit("->", 1)[0] if "->" in r else "" for r in regions],
                         "metric": "time", "kind": kind, "aggregation": "max",
                         "value": [float(v) for v in values.values()], "unit": "s"})


def test_exclusive_and_inclusive_are_inverse_on_a_tree():
    inclusive = {"main": 10.0, "main->solve": 7.0, "main->solve->mpi": 2.0, "main->io": 1.5}
    own = exclusive_from_inclusive(_tree(inclusive, "inclusive"))
    assert own["kind"].eq("exclusive").all()
    # main: 10 - 7 - 1.5; solve: 7 - 2; leaves keep their value
    assert own["value"].tolist() == [1.5, 5.0, 2.0, 1.5]
    back = inclusive_from_exclusive(own)
    assert back["kind"].eq("inclusive").all()
    np.testing.assert_allclose(back["value"], list(inclusive.values()))


def test_a_region_is_not_the_descendant_of_a_name_it_starts_with():
    # "main->solver" does not lie under "main->solve": only the separator makes a child
    rows = _tree({"main": 1.0, "main->solve": 2.0, "main->solver": 4.0}, "exclusive")
    assert inclusive_from_exclusive(rows)["value"].tolist() == [7.0, 2.0, 4.0]


def test_profiles_are_kept_apart():
    rows = pd.concat([_tree({"main": 3.0, "main->x": 1.0}, "inclusive", "a"),
                      _tree({"main": 5.0, "main->x": 4.0}, "inclusive", "b")], ignore_index=True)
    assert exclusive_from_inclusive(rows)["value"].tolist() == [2.0, 1.0, 1.0, 4.0]


def test_time_metric_prefers_inclusive_max_then_names_the_missing_metric():
    combos = [("visits", "inclusive", "max", ""), ("time", "exclusive", "max", "s"), ("time", "inclusive", "avg", "s"),
              ("time", "inclusive", "max", "s"), ("time.duration", "inclusive", "max", "s")]
    table = pd.DataFrame(combos, columns=["metric", "kind", "aggregation", "unit"])
    assert time_metric(table) == ("time", "inclusive", "max")
    assert time_metric(table, "exclusive") == ("time", "exclusive", "max")
    assert time_metric(table, metric="visits") == ("visits", "inclusive", "max")
    with pytest.raises(ValidationError, match="RegionPredictor.fit: no metric 'flops'"):
        time_metric(table, metric="flops", where="RegionPredictor.fit")
    # one unnamed metric (Extra-P's "<default>") is what was measured; several without a time one are not
    single = pd.DataFrame([("<default>", "n/a", "none", "")], columns=table.columns)
    assert time_metric(single) == ("<default>", "n/a", "none")
    with pytest.raises(ValidationError, match="no time metric"):
        time_metric(pd.concat([single, table.iloc[:1]]))
