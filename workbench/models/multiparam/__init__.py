"""Runtime over processes x problem size: multi-parameter models and a calibrated predictor.

References
----------
[ExtraP]
    The performance model normal form (PMNF) and its hypothesis search.
[ExtraP4]
    Extra-P 4.2.5 (commit 291ac81), ``extrap/modelers/multi_parameter/multi_parameter_modeler.py``
    (``find_best_measurement_points``, ``create_model``) and ``extrap/entities/hypotheses.py``
    (``MultiParameterHypothesis.compute_coefficients`` / ``compute_cost``,
    ``calc_term_contribution``).  No Extra-P code is used.

Input
-----
``X`` is a DataFrame with a column ``n`` (the allocation: processes, nodes, GPUs; >= 1) and
one or more problem-parameter columns named by the user (``s``, ``ne``, ``grid`` ...; > 0);
``t`` the runtimes (> 0, any unit).  Runs repeated at one coordinate are averaged.

Models
------
:class:`ExtraPMultiParameter`
    Extra-P's multi-parameter PMNF ([ExtraP4]): for each parameter, the runs on the longest
    lines along it (the other parameters fixed) are averaged per value and modelled by the
    single-parameter PMNF (:class:`~workbench.models.pmnf.PMNF`, one term ``x^i log2(x)^j``);
    the terms of the parameters that are not constant are combined into the hypotheses
    ``a*b``, ``a+b``, ``a*b+a``, ``a*b+b`` (for three parameters Extra-P's 23), each fitted
    by least squares on all points, and the one with the smallest training SMAPE whose terms
    all contribute at least 0.0005 of the data wins (the first hypothesis, the product, is
    the start).  ``target="cost"`` models ``t * n`` instead of ``t`` (Extra-P's strong
    scaling conversion applied to the multi-parameter case).
:class:`WorkAwareModel`
    ``t = c0 + c1 W(s)/n + sum_k c_k h_k(n, s)``: the per-process share of the work
    ``W(s) = prod_j s_j^a_j`` (exponents ``a_j`` learnt from a grid, or a user-given work
    function; or, when the parameters are weak-scaling inputs such as neurons per rank,
    ``W = n prod_j s_j^a_j``, and ``n^(4/3)`` / ``n^(3/2)`` when the time steps grow with the
    whole mesh (:data:`SCOPES`), the scope learnt with the exponents) plus at most
    ``max_terms`` overhead terms from :data:`OVERHEAD_TERMS` (``log2 n``, ``n^(1/2)``,
    ``n``, halo ``(W/n)^(2/3)``, serial work ``W``, ...), every coefficient >= 0.  Fitted on
    relative errors; the work exponents and the terms are chosen by
    *extrapolation-oriented* cross-validation: refit without the largest size, without the
    largest allocation of each size, and predict the second-largest size from the smaller
    ones, score the log errors of the left-out runs (:func:`extrapolation_splits`).  All
    candidates and folds are solved at once (batched normal equations).  Weak scaling
    (``s / n`` constant) needs no special case: along that line ``W/n`` is constant and the
    overhead terms carry the growth.
:class:`ExpertWorkModel`
    The fixed expert form ``t = c0 + c1 W/n + c2 log2 n`` (``W`` = the size, or a work
    function): a baseline.
:class:`SizePowerModel`
    ``t = a_n * s^m``: the fractal extrapolation's power law in the size, one exponent shared
    by the measured allocations; it predicts only at those (a *bigger* problem on allocations
    already measured) and abstains elsewhere.

:class:`MultiParameterPredictor` fits several of them, weights them by the same
extrapolation-oriented cross-validation and returns calibrated intervals and warnings
(``multiparam_calibration.json`` in this package, made by ``tools/multiparam_calibrate.py``).

Modules: :mod:`~workbench.models.multiparam.base` (input checks, folds, the base class),
:mod:`~workbench.models.multiparam.extrap`, :mod:`~workbench.models.multiparam.work`,
:mod:`~workbench.models.multiparam.sizepower` (the members),
:mod:`~workbench.models.multiparam.predictor` and
:mod:`~workbench.models.multiparam.calibration`; every public name is importable from here.
"""

from workbench.models.multiparam.base import (
    ALLOCATION,
    MultiParameterModel,
    aggregate_runs,
    check_parameters,
    check_runtimes,
    extrapolation_distance,
    extrapolation_folds,
    extrapolation_splits,
    ideal_speedup_floor,
    line_distance,
    size_key,
    unique_rows,
    unvaried_changes,
)
from workbench.models.multiparam.calibration import CALIBRATION_PATH, default_calibration
from workbench.models.multiparam.extrap import ExtraPMultiParameter
from workbench.models.multiparam.predictor import (
    MEMBERS,
    MIN_VOTERS,
    PREDICT_FRAME_EXTRA,
    THRESHOLDS,
    UNSEEN_SIZE,
    WARNING_KINDS,
    MultiParameterPredictor,
    combine_members,
    combine_screened,
    learnt_work_law,
    screen_members,
    screen_misfits,
    target_direction,
    target_weights,
    weighting_folds,
    widen_to_span,
)
from workbench.models.multiparam.sizepower import SizePowerModel
from workbench.models.multiparam.work import (
    COARSE_WORK_EXPONENTS,
    MAX_WORK_CELLS,
    MAX_WORK_VECTORS,
    OVERHEAD_TERMS,
    SCOPE_EXPONENTS,
    SCOPES,
    WORK_EXPONENTS,
    ExpertWorkModel,
    WorkAwareModel,
)

__all__ = [
    "ALLOCATION",
    "CALIBRATION_PATH",
    "OVERHEAD_TERMS",
    "SCOPES",
    "COARSE_WORK_EXPONENTS",
    "MAX_WORK_CELLS",
    "MAX_WORK_VECTORS",
    "SCOPE_EXPONENTS",
    "WORK_EXPONENTS",
    "MEMBERS",
    "MIN_VOTERS",
    "PREDICT_FRAME_EXTRA",
    "THRESHOLDS",
    "WARNING_KINDS",
    "ExpertWorkModel",
    "ExtraPMultiParameter",
    "MultiParameterModel",
    "MultiParameterPredictor",
    "SizePowerModel",
    "WorkAwareModel",
    "aggregate_runs",
    "check_parameters",
    "check_runtimes",
    "default_calibration",
    "extrapolation_distance",
    "extrapolation_folds",
    "extrapolation_splits",
    "ideal_speedup_floor",
    "line_distance",
    "size_key",
    "UNSEEN_SIZE",
    "combine_members",
    "combine_screened",
    "learnt_work_law",
    "screen_members",
    "screen_misfits",
    "widen_to_span",
    "weighting_folds",
    "target_direction",
    "target_weights",
    "unique_rows",
    "unvaried_changes",
]
