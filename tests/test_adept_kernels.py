"""ADEPT's compiled pass-1 kernels give exactly what their array-operation definitions give
(thesis 3.5.2): the scale-free candidates (fixed-point roots inside the envelope), the pass-1
choice with its tie rule, and Table 3's runner-up.  Exact equality, not closeness: the fast
path must choose the same instances as the definitions, ties included."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.models import downey
from workbench.models.adept import search
from workbench.models.adept.envelope import fit_envelope


def _curve(seed, points=4):
    rng = np.random.default_rng(seed)
    n = np.unique(np.round(2 ** rng.uniform(0, 9, points)))
    t = downey.runtime(n, rng.uniform(2, 400), rng.choice([0.0, rng.uniform(0, 1), rng.uniform(1, 6)]))
    return n, t * rng.lognormal(0, 0.04, n.size) / t.max()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), delta=st.sampled_from([0.05, 0.1, 0.3]), stepwise=st.booleans())
def test_scale_free_candidates_are_the_roots_inside_the_envelope(seed, delta, stepwise):
    n, t = _curve(seed, points=5)
    if n.size < 3:
        return
    phase = (np.arange(n.size) >= n.size // 2).astype(int) if stepwise else np.zeros(n.size, int)
    env = fit_envelope(n, t, delta, "fit", phase=phase)
    if env.empty:
        return
    A_grid = np.geomspace(*env.A_range, 700)
    f, g = n.size - 1, n.size - 2
    # the definition: every finite fixed-point root, in grid and segment order, that the
    # envelope contains
    roots = search.fixed_point_sigmas(n[f], t[f], A_grid, paper=False, n_g=n[g], t_g=t[g], s_max=env.sigma_range[1])
    A_all = np.broadcast_to(A_grid[:, None], roots.shape)[np.isfinite(roots)]
    s_all = roots[np.isfinite(roots)]
    keep = env.contains(A_all, s_all)
    A, s = search.scale_free_candidates(n[f], t[f], n[g], t[g], A_grid, env.sigma_range[1], n, t, phase, delta)
    np.testing.assert_array_equal(A, A_all[keep])
    np.testing.assert_array_equal(s, s_all[keep])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), paper=st.booleans(), floor=st.booleans(), ties=st.booleans())
def test_pass1_pick_is_the_objective_minimum_with_ties_to_the_largest_A(seed, paper, floor, ties):
    rng = np.random.default_rng(seed)
    K, C, M = rng.integers(1, 6), rng.integers(1, 40), 4
    x = rng.uniform(0.5, 2.0, (C, M))
    A = np.round(rng.uniform(1, 50, C), 1 if ties else 6)
    if ties:  # exact copies of candidates: equal objectives, some with equal A (first one wins)
        x[C // 2:] = x[: C - C // 2]
        A[C // 2:] = np.where(rng.random(C - C // 2) < 0.5, A[: C - C // 2], A[C // 2:])
    W = rng.uniform(0, 3, (K, M))
    A_floor = rng.uniform(1, 50, K) if floor else np.full(K, -np.inf)
    S1, S2, S0 = W @ x.T, W @ (x * x).T, W.sum(axis=1)
    f, pick, fmin = search.pass1_pick(S1, S2, S0, A, A_floor, paper)
    # the definition (array operations)
    ref = (S2 - 2 * S1) + S0[:, None] if paper else S0[:, None] - S1 * S1 / S2
    ref = np.where(A[None, :] >= A_floor[:, None], np.maximum(ref, 0.0), np.inf)
    np.testing.assert_array_equal(f, ref)
    np.testing.assert_array_equal(fmin, ref.min(axis=1))
    tol = 1e-9 * np.maximum(ref.min(axis=1, keepdims=True), 1e-12 * S0[:, None])
    tied = ref <= ref.min(axis=1, keepdims=True) + tol
    np.testing.assert_array_equal(pick, np.argmax(np.where(tied, A[None, :], -np.inf), axis=1))


def test_pass1_pick_by_hand():
    # one target, weights (1, 1); candidates x = (1, 1) (perfect), (1, 2) and again (1, 1):
    # objectives 0, 2 - 9/5 = 0.2, 0 -> the two perfect ones tie, the larger A (7) wins
    x = np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 1.0]])
    W = np.array([[1.0, 1.0]])
    f, pick, fmin = search.pass1_pick(W @ x.T, W @ (x * x).T, W.sum(axis=1), np.array([3.0, 5.0, 7.0]),
                                      np.array([-np.inf]), False)
    np.testing.assert_allclose(f, [[0.0, 0.2, 0.0]], atol=1e-15)
    assert pick[0] == 2 and fmin[0] == 0.0
    # a floor above 5 leaves only A = 7
    _, pick, _ = search.pass1_pick(W @ x.T, W @ (x * x).T, W.sum(axis=1), np.array([3.0, 5.0, 7.0]),
                                   np.array([6.0]), False)
    assert pick[0] == 2


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_runner_up_pick_is_the_best_far_candidate_within_the_ratio(seed):
    rng = np.random.default_rng(seed)
    K, C = rng.integers(1, 6), rng.integers(1, 40)
    f = rng.uniform(0, 2, (K, C))
    A = rng.uniform(1, 100, C)
    A_best, obj = rng.uniform(1, 100, K), rng.uniform(0, 2, K) * rng.integers(0, 2, K)
    pick, found = search.runner_up_pick(f, A, A_best, obj, 1.5, 1.1)
    far = (A[None, :] < A_best[:, None] / 1.5) | (A[None, :] > A_best[:, None] * 1.5)
    ok = far & (f < 1.1 * obj[:, None]) & (obj[:, None] > 0)
    np.testing.assert_array_equal(found, ok.any(axis=1))
    np.testing.assert_array_equal(pick[found], np.argmin(np.where(ok, f, np.inf), axis=1)[found])
