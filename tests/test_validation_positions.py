"""The checks of :mod:`workbench.validation` that name every bad position, refuse scalars, or read (n, t) pairs."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import ValidationError
from workbench.validation import one_dimensional, require_none, run_pair


def test_require_none_lists_every_bad_position_with_its_value():
    t = np.array([3.0, -1.0, 2.0, 0.0])
    with pytest.raises(ValidationError) as info:
        require_none(t <= 0, t, "runtimes must be positive", "curve A")
    assert str(info.value) == "curve A: runtimes must be positive, got [-1.0, 0.0] at positions [1, 3]"
    require_none(t > 5, t, "runtimes must be at most 5", "curve A")  # nothing bad: no error


def test_require_none_without_values_prefix_or_beyond_the_limit():
    n = np.array([np.nan, 1.0, np.inf, np.nan])
    with pytest.raises(ValidationError) as info:
        require_none(~np.isfinite(n), n, "counts contain NaN or infinity", show_values=False, limit=2)
    assert str(info.value) == "counts contain NaN or infinity at positions [0, 2]"


@pytest.mark.parametrize("values, where, message", [
    (["a", "b"], None, "t must be numeric: could not convert string to float: 'a'"),
    ([[1.0, 2.0]], "fit", "fit: t must be one-dimensional, got shape (1, 2)"),
    (4.0, None, "t must be one-dimensional, got shape ()"),
])
def test_one_dimensional_refuses_text_tables_and_scalars(values, where, message):
    with pytest.raises(ValidationError) as info:
        one_dimensional(values, "t", where)
    assert str(info.value) == message


def test_one_dimensional_returns_floats():
    out = one_dimensional([1, 2, 3], "n")
    assert out.dtype == float and out.tolist() == [1.0, 2.0, 3.0]


def test_run_pair():
    n, t = run_pair(([1, 2], [[5.0], [4.0]]), "held_back")
    assert n.tolist() == [1.0, 2.0] and t.tolist() == [5.0, 4.0]
    assert [a.size for a in run_pair(None, "held_back")] == [0, 0]
    with pytest.raises(ValidationError, match=r"^held_back must be a pair \(n, t\) of arrays$"):
        run_pair([1, 2, 3], "held_back")
    with pytest.raises(ValidationError, match=r"^observed: n has 2 values but t has 1$"):
        run_pair(([1, 2], [3.0]), "observed")
