"""Every model refuses to predict before it is fitted in one way: the project's
:class:`~workbench.errors.NotFittedError` (also scikit-learn's and a ValidationError) with one
wording, naming the class and the call that fits it (``workbench.validation.check_fitted``)."""

import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from workbench.errors import NotFittedError, ValidationError
from workbench.models.adept import Adept
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel
from workbench.models.comm.gbm import CommGBM
from workbench.models.comm.regression import CommRegression
from workbench.models.comm.semi_empirical import ExchangeModel, PpnFactorModel
from workbench.models.fim.calibration import FiMCal, HardwareRegression
from workbench.models.fim.fim_com import FiMCom
from workbench.models.fim.rbasp import RBASP
from workbench.models.fractal import FractalExtrapolator
from workbench.models.pmnf import PMNF
from workbench.models.scaling import MODELS, ScalingPredictor

FRAME = pd.DataFrame({"processes": [1.0, 2.0]})
CASES = {
    "Adept": (Adept, lambda m: m.predict([8])),
    "AmdahlModel": (AmdahlModel, lambda m: m.predict([8])),
    "USLModel": (USLModel, lambda m: m.predict([8])),
    "DowneyLM": (DowneyLM, lambda m: m.predict([8])),
    "PMNF": (PMNF, lambda m: m.predict([8])),
    "ScalingPredictor": (ScalingPredictor, lambda m: m.predict([8])),
    **{f"MODELS[{name}]": (cls, lambda m: m.predict([8])) for name, cls in MODELS.items()},
    "FractalExtrapolator": (FractalExtrapolator, lambda m: m.predict(1000)),
    "HardwareRegression": (HardwareRegression, lambda m: m.predict(FRAME)),
    "FiMCal": (FiMCal, lambda m: m.predict(FRAME)),
    "RBASP": (RBASP, lambda m: m.predict(FRAME)),
    "ExchangeModel": (ExchangeModel, lambda m: m.predict(1, 4096)),
    "PpnFactorModel": (PpnFactorModel, lambda m: m.predict(1, 4096)),
    "CommRegression": (CommRegression, lambda m: m.predict(FRAME)),
    "CommGBM": (CommGBM, lambda m: m.predict(FRAME)),
    "FiMCom": (FiMCom, lambda m: m.predict([[100, 4]])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_unfitted_model_raises_the_one_not_fitted_error(case):
    make, call = CASES[case]
    model = make()
    with pytest.raises(NotFittedError,
                       match=rf"this {type(model).__name__} is not fitted yet; call fit\(.*\) first") as info:
        call(model)
    assert isinstance(info.value, SklearnNotFittedError) and isinstance(info.value, ValidationError)
