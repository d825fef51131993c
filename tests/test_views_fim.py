"""The FiM-Cal dashboard's panels without widgets (workbench.views.fim): hand-made states
in, figures and readouts out; the alpha used, the cache, the Markov and regression views,
the pickers' choices, and runs that cannot be fitted."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.errors import ValidationError
from workbench.io.kmeans_runs import synthetic_kmeans_runs
from workbench.views.fim import (
    DISPLAY_TC,
    MAX_ITER,
    FiMState,
    data_choices,
    data_summary_html,
    fim_parameters,
    fim_view,
    fit_key,
    fixed_choices,
)


@pytest.fixture(scope="module")
def runs():
    return synthetic_kmeans_runs(repeats=1)


@pytest.fixture(scope="module")
def panels(runs):
    return fim_view(FiMState(runs))


class CountingCache:
    def __init__(self):
        self.items, self.fits = {}, 0

    def get(self, key, compute):
        if key not in self.items:
            self.fits += 1
            self.items[key] = compute()
        return self.items[key]


def _trace(fig, prefix):
    return next(tr for tr in fig.data if (tr.name or "").startswith(prefix))


def test_default_state_calibrates_and_predicts_with_the_calibrated_alpha(runs, panels):
    fim = panels.experiment.models["FiM (I, K, N)"]
    assert panels.fim_name == "FiM (I, K, N)" and panels.calibrated_alpha == fim.alpha_
    assert panels.alpha == pytest.approx(fim.alpha_, rel=1e-6)
    assert panels.calibration.layout.title.text.startswith("Algorithm 1")
    assert list(_trace(panels.calibration, "τ").y) == [0.5, 0.5]
    assert [tr.name for tr in panels.prediction.data][:4] == ["measured (median, min-max)", "FiM (I, K, N)",
                                                           "RBASP linear g", "RBASP quadratic g"]
    assert set(panels.figures) == {"parity", "table4", "surface", "heatmap", "occupancy"}
    assert panels.summary_rows["α used for prediction"] == f"{panels.alpha:.6g}"
    assert {"FiM (I, K, N): mean error", "RBASP linear g: mean error"} <= set(panels.summary_rows)
    assert panels.notes_kind == "info" and list(panels.table4_table.columns)  # converged: notes are information
    # the prediction figure shows the last test configuration by default
    last = data_choices(runs)[0][-1][0]
    assert panels.prediction.layout.title.text.startswith(last)


def test_alpha_used_scales_fim_only(runs, panels):
    alpha = round(panels.alpha * 0.9, 4)
    other = fim_view(FiMState(runs, alpha=alpha))
    before = np.asarray(_trace(panels.prediction, "FiM").y, dtype=float)
    after = np.asarray(_trace(other.prediction, "FiM").y, dtype=float)
    ok = np.isfinite(before) & np.isfinite(after)
    assert ok.any()
    # paper model: T = 1 / (F (1 - (1 - 1/(alpha TC))^t)), proportional to alpha for TC >> t
    np.testing.assert_allclose(after[ok] / before[ok], alpha / panels.alpha, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(_trace(other.prediction, "RBASP linear g").y, dtype=float),
                               np.asarray(_trace(panels.prediction, "RBASP linear g").y, dtype=float))
    assert other.calibrated_alpha == panels.calibrated_alpha
    assert list(_trace(other.calibration, "α used").x) == [alpha] * 2


def test_the_cache_fits_once_per_runs_and_parameters(runs):
    cache = CountingCache()
    state = FiMState(runs, tau=0.3)
    first = fim_view(state, cache)
    again = fim_view(dataclasses.replace(state, alpha=0.7, processes=2, variable="utilization"), cache)
    assert cache.fits == 1 and again.experiment is first.experiment and again.fit_key == first.fit_key == fit_key(state)
    fim_view(dataclasses.replace(state, tau=0.2), cache)
    assert cache.fits == 2


def test_max_iter_is_capped_per_model(runs):
    state = FiMState(runs, model="barrier", alpha_init=1.0, max_iter=5000)
    assert fim_parameters(state)["max_iter"] == MAX_ITER["barrier"]
    p = fim_view(state)
    assert p.fim_name == "FiM barrier ext. (I, K, N)" and "(capped)" in p.summary_rows["calibrated α"]
    assert p.experiment.models[p.fim_name].max_iter == MAX_ITER["barrier"]


def test_markov_view_follows_t_and_the_configuration(runs, panels):
    p = fim_view(FiMState(runs, processes=6))
    z = np.asarray(p.heatmap.data[0].z)
    assert z.shape == (7, 8)  # 0..6 active + done
    assert z[-1, -1] == pytest.approx(1 - (1 - 1 / DISPLAY_TC) ** 6)  # Eq. 9 of the drawn chain
    chain = p.markov
    assert chain.valid and chain.processes == 6 and chain.completion == pytest.approx(1 - (1 - 1 / chain.tc) ** 6)
    assert "SC and U do not enter" in p.markov_rows["Eq. 10: T = 1/(P_s F) at t = 6"]
    first = data_choices(runs)[0][0]
    q = fim_view(FiMState(runs, processes=6, config=first[1]))
    assert q.markov_rows != p.markov_rows and q.prediction.layout.title.text.startswith(first[0])


def test_regression_view(runs):
    options, middle = fixed_choices(runs, ("clusters", "points"))
    assert [v for _, v in options] == [20.0, 40.0, 80.0] and middle == 40.0  # I of the training runs on 1 process
    p = fim_view(FiMState(runs, axes=("clusters", "points"), fixed=80.0))
    assert "I=80" in p.surface.layout.title.text and p.surface.layout.xaxis.title.text.startswith("K")
    q = fim_view(FiMState(runs, axes=("clusters", "points"), fixed=80.0, surface_view="3d", variable="utilization"))
    assert q.surface.data[0].type == "surface" and q.surface.layout.scene.xaxis.title.text.startswith("K")


def test_data_choices_and_summary(runs):
    configs, pairs = data_choices(runs)
    assert len(configs) == 4 and all(len(v) == 3 for _, v in configs)
    assert pairs[0][1] == ("iterations", "clusters") and len(pairs) == 3
    evil = "<img src=x onerror=alert(1)>"
    line = data_summary_html(runs, {"description": "SYNTHETIC", "machine": {"cpu_model": evil, "cpus": 2}}, "mine")
    assert f"{len(runs)} runs" in line and "4 test configurations" in line and "SYNTHETIC" in line
    assert evil not in line and "&lt;img" in line


def test_runs_fim_cannot_fit_still_show_rbasp_and_say_why(runs):
    bad = runs.copy()
    bad["utilization"] = 1.5  # U outside [0, 1]: FiMCal refuses to fit
    p = fim_view(FiMState(bad))
    assert p.calibrated_alpha is None and p.notes_kind == "error"
    assert p.notes.startswith("FiM could not be fitted with these settings") and "must be in [0, 1]" in p.notes
    assert "FiM could not be fitted" in p.calibration.layout.title.text and not p.calibration.data
    assert "No Markov chain" in p.heatmap.layout.title.text and p.markov_rows == {} and p.markov is None
    assert "RBASP linear g: mean error" in p.summary_rows and "calibrated α" not in p.summary_rows


def test_runs_without_test_runs_are_refused_in_words(runs):
    with pytest.raises(ValidationError, match="no runs with role == 'test'"):
        fim_view(FiMState(runs[runs["role"] == "train"]))
