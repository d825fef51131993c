"""ADEPT's warning rules ([Deshmeh2013] section 3.10, Table 3, and the data checks).

Each function turns fitted data into :class:`~workbench.errors.ModelWarning` s; none keeps
state.  :data:`WARNING_KINDS` says what every kind means.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning
from workbench.models.adept.anomalies import AnomalyReport

__all__ = ["WARNING_KINDS", "anomaly_warnings", "delta_increased_warning", "dropped_repeat_warning",
           "sizes_differ_warning", "superlinear_warnings", "target_warnings"]

#: The kinds of ADEPT's :class:`~workbench.errors.ModelWarning` s ([Deshmeh2013] section 3.10,
#: Table 3, and the data checks) and what each means.  Fit-level ones are emitted by ``fit``;
#: per-target ones are in ``warnings_`` / ``warnings_for``.
WARNING_KINDS = {
    "dropped-repeat": "repeated runs were dropped as obvious outliers",
    "sizes-differ": "cross-size: the runtime ratio target/base varies with n, the sizes behave differently (3.15)",
    "declining-or-anomalous-last-point":
        "the last observation looks anomalous: excluded, no prediction past it (3.9.1)",
    "anomaly": "an observation is anomalous and its weight is scaled down (3.9.2)",
    "unresolved-anomaly": "anomaly candidates could not be resolved",
    "stepwise": "stepwise scalability: each prediction uses only the phase of its closest observation (3.9.3)",
    "specially-optimised": "the application appears optimised for some allocations: only those are used (3.9.3)",
    "superlinear-speedup": "superlinear speedup, which the Downey model cannot represent",
    "delta-increased": "delta was increased so that a model instance explains every observation (3.5.1)",
    "linear-section": "all observations lie on the first, near-linear piece: the saturation point is not constrained",
    "high-fit-error": "the fitted instances deviate from an observation by more than the threshold (3.10)",
    "saturation-undetermined": ("the best fit saturated near the observed range, the data did not demand it, and a "
                                "non-saturating fit is used"),
    "saturation-near-range": "a kept fit's flat piece begins within 3x the largest observation: flat predictions past "
                             "it",
    "runner-up": "another instance with a very different A explains the observations nearly as well",
}


def _or_none(x):
    return float(x) if np.isfinite(x) else None


def dropped_repeat_warning(dropped: dict) -> ModelWarning:
    """Return the "dropped-repeat" warning for the runs ``dropped`` (columns n, t).

    Parameters
    ----------
    dropped : dict
        Columns n and t of the dropped runs.

    Returns
    -------
    ModelWarning
        With the runs as a frame in ``details["dropped"]``.
    """
    frame = pd.DataFrame(dropped)
    return ModelWarning(
        "dropped-repeat",
        f"dropped {len(frame)} repeated run(s) as obvious outliers: "
        + ", ".join(f"n={a:g}: {b:g}" for a, b in frame.itertuples(index=False)),
        details={"dropped": frame})


def sizes_differ_warning(common: np.ndarray, ratios: np.ndarray) -> ModelWarning:
    """Return the cross-size "sizes-differ" warning ([Deshmeh2013] section 3.15).

    Parameters
    ----------
    common : numpy.ndarray
        Processor counts both sizes were run at.
    ratios : numpy.ndarray
        Runtime ratios target/base there.

    Returns
    -------
    ModelWarning
        The warning.
    """
    return ModelWarning(
        "sizes-differ",
        f"the runtime ratio target/base varies from {ratios.min():.3g} to {ratios.max():.3g} across "
        f"n = {common.tolist()}: the two sizes behave like different applications (thesis 3.15)",
        details={"n": common, "ratio": ratios})


def anomaly_warnings(a: AnomalyReport, cross: bool) -> list[ModelWarning]:
    """Warnings of an anomaly report ([Deshmeh2013] section 3.9).

    Parameters
    ----------
    a : AnomalyReport
        The observations' (or, with ``cross``, the base size's) report.
    cross : bool
        Whether it is the base size of a cross-size fit.

    Returns
    -------
    list of ModelWarning
        One per anomaly, then unresolved candidates and the pattern.
    """
    out = []
    where = "base-size " if cross else ""
    for row in a.anomalies.itertuples(index=False) if len(a.anomalies) else ():
        if row.last_point and not cross:
            out.append(ModelWarning(
                "declining-or-anomalous-last-point",
                f"the last observation (n={row.n:g}) looks anomalous: it may be the declining phase or an "
                "anomaly. It is excluded from the fit and no prediction is made past it (thesis 3.9.1).",
                suggested_n=None, details={"n": row.n, "D": row.D}))
        elif row.last_point:
            out.append(ModelWarning(
                "anomaly", f"the last base-size observation (n={row.n:g}) is slower than the one before it "
                "(declining phase or anomaly); it gives no guiding point", details={"n": row.n}))
        else:
            out.append(ModelWarning(
                "anomaly",
                f"{where}observation n={row.n:g} is anomalous (magnitude D={row.D:.2f}); its weight is scaled "
                f"by {row.weight_factor:.2f} (thesis 3.9.2)", details={"n": row.n, "D": row.D}))
    if a.unresolved:
        out.append(ModelWarning(
            "unresolved-anomaly",
            f"{where}anomaly candidates at n={a.unresolved} could not be resolved "
            "(needs >= 4 observations, or no known pattern fits)", details={"n": a.unresolved}))
    if a.pattern == "stepwise":
        out.append(ModelWarning(
            "stepwise",
            f"stepwise scalability: {a.phase.max() + 1} phases; each prediction uses only the phase of "
            "its closest observation (thesis 3.9.3)", details={"phase": a.phase}))
    if a.pattern == "specially-optimised":
        out.append(ModelWarning(
            "specially-optimised",
            f"the application appears optimised for {a.feasible_allocations}: only those allocations are "
            "used and recommended (thesis 3.9.3)", details={"feasible": a.feasible_allocations}))
    return out


def superlinear_warnings(obs: dict) -> list[ModelWarning]:
    """Warn of relative speedup above the processor ratio between two observations.

    The Downey model cannot represent it (S(n) <= n and S(m)/S(n) <= m/n); it typically
    comes from data fitting a faster memory level (the thesis' stepwise pattern,
    [Deshmeh2013] section 3.9.3).

    Parameters
    ----------
    obs : dict
        Observation columns (n, t, kind), sorted by n.

    Returns
    -------
    list of ModelWarning
        A "superlinear-speedup" warning, or nothing.
    """
    # every measured (not guiding) point counts: an anomaly the fit discounts is still
    # a measured superlinear step the model cannot follow
    measured = obs["kind"] == "observed"
    n, t = obs["n"][measured], obs["t"][measured]
    gain = (t[:-1] / t[1:]) / (n[1:] / n[:-1])
    bad = np.nonzero(gain > 1.05)[0]
    if bad.size == 0:
        return []
    pairs = ", ".join(f"{n[i]:g}->{n[i + 1]:g} ({gain[i]:.2f}x ideal)" for i in bad)
    return [ModelWarning(
        "superlinear-speedup",
        f"superlinear speedup between {pairs}: the Downey model cannot represent it, so predictions "
        "extrapolate a curve the data do not follow (cache/memory effects, placement changes?)",
        details={"pairs": [(n[i], n[i + 1]) for i in bad], "gain": gain[bad]})]


def delta_increased_warning(delta: float, delta_: float) -> ModelWarning:
    """Return the "delta-increased" warning ([Deshmeh2013] section 3.5.1).

    Parameters
    ----------
    delta : float
        The initial deviation bound (the parameter).
    delta_ : float
        The bound finally used.

    Returns
    -------
    ModelWarning
        The warning.
    """
    return ModelWarning(
        "delta-increased",
        f"delta increased from {delta:g} to {delta_:.3g} so that a model instance explains "
        "every observation within it (thesis 3.5.1)", details={"delta": delta_})


def _linear_section(fits, n_top, paper):
    """Table 3's "linear-section" warning, or None."""
    targets = fits["target"]
    # Table 3: a low-variance fit with every n_i < A.  With a free time scale (fit mode)
    # the first piece of *either* mode is Amdahl-shaped, tau (a + b/n), so observations
    # that all lie on it leave the saturation undetermined in the high-variance mode too.
    low = fits["variance"] == "low"
    first_end = np.where(low, fits["A"], fits["A"] + (fits["A"] - 1) * fits["sigma"])
    # Every allocation the saturation warnings quote or suggest lies between the largest
    # observation and the largest target concerned: a section end or a run past every
    # target (e.g. the first piece of a high-variance fit, A + (A - 1) sigma, can be
    # 10^6) is nothing a user can act on.
    lin = (low | (not paper)) & (first_end > n_top)
    if not lin.any():
        return None
    end, reach = first_end[lin].min(), targets[lin].max()
    if end < reach:
        where = f"it ends at n = {end:.0f}, beyond n = {n_top:g}"
        suggested = float(np.ceil(end))
        advice = f"Measure at n >= {suggested:g}"
    else:
        where = f"it reaches past n = {reach:g}, the largest target"
        suggested = float(reach)
        advice = f"Measure as close to n = {reach:g} as you can"
    return ModelWarning(
        "linear-section",
        f"all observations lie on the first (near-linear) piece of the fitted model ({where}): the "
        f"saturation point is not constrained. {advice} (thesis 3.10, Table 3).",
        targets=tuple(targets[lin].tolist()), suggested_n=suggested)


def _saturation_warnings(fits, n_top, bound, horizon):
    """Return the "saturation-undetermined" and "saturation-near-range" warnings (``saturation="evidence"``)."""
    out = []
    targets = fits["target"]

    def within(sug, concerned):  # a suggestion between the largest observation and the targets concerned
        return sug if sug is not None and n_top < sug <= targets[concerned].max() else None

    und = fits["saturation"] == "undetermined"
    if und.any():
        i = int(np.flatnonzero(und)[0])
        sug = within(_or_none(fits["saturation_suggested_n"][i]), und)
        out.append(ModelWarning(
            "saturation-undetermined",
            f"the best fit stops speeding up at n = {fits['saturation_n'][i]:.0f} (A = "
            f"{fits['saturating_A'][i]:.3g}), within {horizon:g}x the largest observation, but "
            f"the data do not demand it: an instance that keeps speeding up there explains every observation "
            f"within {bound:.0%} and is used instead. Where the application saturates is undetermined"
            + (f"; a run at n = {sug:g} would tell the two apart." if sug else "."),
            targets=tuple(targets[und].tolist()), suggested_n=sug,
            details={c: fits[c][und] for c in ("saturation_n", "saturating_A", "saturating_sigma")}))
    near = fits["saturation"] == "near-range"
    if near.any():
        i = int(np.flatnonzero(near)[0])
        sug = within(_or_none(fits["saturation_suggested_n"][i]), near)
        out.append(ModelWarning(
            "saturation-near-range",
            f"the fitted instance stops speeding up at n = {fits['saturation_n'][i]:.0f} (A = "
            f"{fits['A'][i]:.3g}), within {horizon:g}x the largest observation: predictions "
            f"past it are flat. The data demand it (an instance that keeps speeding up misses an observation "
            f"by more than {bound:.0%} or fits significantly worse)"
            + (f"; a run at n = {sug:g} would confirm it." if sug else "."),
            targets=tuple(targets[near].tolist()), suggested_n=sug,
            details={"saturation_n": fits["saturation_n"][near]}))
    return out


def target_warnings(fits: dict[str, np.ndarray], *, n_used: np.ndarray, threshold: float, bound: float,
                    horizon: float, paper: bool) -> list[ModelWarning]:
    """Table 3's reliability warnings for per-target fits ([Deshmeh2013] section 3.10).

    Parameters
    ----------
    fits : dict of numpy.ndarray
        Per-target fit columns (:class:`~workbench.models.adept.results.TargetFits`).
    n_used : numpy.ndarray
        Processor counts of the observations with a positive weight.
    threshold : float
        Fit error above which "high-fit-error" is raised: max(delta, high_error), against the
        user's bound, not ``delta_`` (which was grown until the data fit within it).
    bound : float
        The saturation rule's bound (:func:`~workbench.models.adept.fitting.saturation_bound`).
    horizon : float
        The saturation rule's horizon c (x the largest observation).
    paper : bool
        Whether the fits are in paper units (tau = 1).

    Returns
    -------
    list of ModelWarning
        "linear-section", "high-fit-error", the saturation warnings and "runner-up", each
        naming the targets it concerns.
    """
    out = []
    targets = fits["target"]
    n_top = n_used.max()
    linear = _linear_section(fits, n_top, paper)
    if linear is not None:
        out.append(linear)
    hi = fits["max_rel_error"] > threshold
    if hi.any():
        worst = fits["max_rel_error"][hi].max()
        out.append(ModelWarning(
            "high-fit-error",
            f"the fitted instances deviate from an observation by up to {worst:.0%} "
            f"(> {threshold:.0%}): the application deviates from the Downey model (thesis 3.10)",
            targets=tuple(targets[hi].tolist()), details={"max_rel_error": float(worst)}))
    out += _saturation_warnings(fits, n_top, bound, horizon)
    ru = ~np.isnan(fits["runner_up_A"])
    if ru.any():
        i = int(np.flatnonzero(ru)[0])
        sug = float(fits["suggested_n"][i])
        out.append(ModelWarning(
            "runner-up",
            "another instance with a very different A explains the observations nearly as well "
            f"(e.g. A={fits['A'][i]:.0f} vs runner-up A={fits['runner_up_A'][i]:.0f}); an observation at "
            f"n={sug:g}, where they differ most, would decide (thesis 3.10, Table 3)",
            targets=tuple(targets[ru].tolist()), suggested_n=sug))
    return out
