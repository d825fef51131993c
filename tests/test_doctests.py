"""The Examples sections of the public estimators run, and print what they say.

Each module below is run through :mod:`doctest` (the same as ``pytest --doctest-modules`` on
it); every estimator listed in ``ESTIMATORS`` must have an Examples section, so the list of
runnable examples can only grow.
"""

import doctest
import importlib
import warnings

import pytest

#: Modules with Examples sections, and their public estimators that must have one.
ESTIMATORS = {
    "workbench.models.pmnf": ["PMNF"],
    "workbench.models.fractal": ["FractalExtrapolator"],
    "workbench.models.multiparam.predictor": ["MultiParameterPredictor"],
    "workbench.models.comm.semi_empirical": ["ExchangeModel"],
    "workbench.models.fim.fim_com": ["FiMCom"],
    "workbench.validation": [],
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_examples_run(name):
    module = importlib.import_module(name)
    for cls in ESTIMATORS[name]:
        assert "\n    Examples\n    --------\n" in getattr(module, cls).__doc__, f"{name}.{cls} has no Examples"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a model's fit warnings are not part of the example's output
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, report=True, verbose=False)
    assert result.attempted >= 2 * len(ESTIMATORS[name]), result
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (printed above)"


def test_a_wrong_example_fails():
    def f():
        """
        >>> 1 + 1
        3
        """
    runner = doctest.DocTestRunner(verbose=False)
    for test in doctest.DocTestFinder().find(f, "f", globs={}):
        runner.run(test, out=lambda _: None)
    assert runner.failures == 1
