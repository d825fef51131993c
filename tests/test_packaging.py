"""pyproject.toml is the single source of dependencies; environment.yml, the Makefile and
the README agree with it and with notebooks/."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ENVIRONMENT = yaml.safe_load((ROOT / "environment.yml").read_text())
README = (ROOT / "README.md").read_text()
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

REQUIRED_LIBRARIES = {"jupyterlab", "ipywidgets", "plotly", "pandas", "numpy", "scipy", "scikit-learn", "voila"}
TEST_TOOLS = {"pytest", "playwright", "nbmake", "pytest-benchmark", "hypothesis"}


def _names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def _conda_and_pip(env: dict) -> tuple[list[str], list[str]]:
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = [p for d in env["dependencies"] if isinstance(d, dict) for p in d.get("pip", [])]
    return conda, pip


def test_pyproject_declares_the_required_libraries():
    # the library's own dependencies, and the notebooks' in the dashboards extra (which the
    # test extra, installed by make and environment.yml, includes)
    extras = PYPROJECT["optional-dependencies"]
    declared = _names(PYPROJECT["dependencies"]) | _names(extras["dashboards"])
    assert REQUIRED_LIBRARIES <= declared, REQUIRED_LIBRARIES - declared
    assert not {"jupyterlab", "voila", "ipywidgets"} & _names(PYPROJECT["dependencies"]), "the library needs no Jupyter"
    assert TEST_TOOLS <= _names(extras["test"])
    assert "workbench[dashboards]" in [r.replace(" ", "") for r in extras["test"]]


def test_one_version():
    assert "version" not in PYPROJECT and "version" in PYPROJECT["dynamic"]
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["dynamic"]["version"] == {"attr": "workbench.__version__"}


def test_the_library_imports_without_jupyter():
    """``pip install workbench`` (no extras) is enough for the maths.

    Every layer below the dashboards, their widget-free views included, imports with Jupyter,
    ipywidgets and Voila made unimportable.
    """
    code = """
import importlib, sys
class NoJupyter:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"ipywidgets", "anywidget", "jupyterlab", "voila", "jupyter_server",
                                  "ipykernel", "IPython", "notebook"}:
            raise ImportError(f"{name} is not installed")
sys.meta_path.insert(0, NoJupyter())
import workbench
for name in ["workbench.io", "workbench.models", "workbench.models.adept", "workbench.models.scaling",
             "workbench.models.fim", "workbench.models.comm", "workbench.models.fractal", "workbench.models.pmnf",
             "workbench.evaluation", "workbench.batch", "workbench.cli", "workbench.plots", "workbench.views",
             *(f"workbench.views.{m}" for m in ("comm_ml", "comm_regression", "fim", "fim_com", "fractal",
                                                  "panels", "predict"))]:
    importlib.import_module(name)
from workbench.models.scaling import ScalingPredictor
frame = ScalingPredictor().fit([1, 2, 4, 8], [100.0, 52.0, 27.0, 15.0]).predict_frame([16, 32])
assert frame["prediction"].notna().all()
print("ok", workbench.__version__)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stderr[-2000:]


def test_environment_yml_only_installs_the_project_with_pip():
    conda, pip = _conda_and_pip(ENVIRONMENT)
    assert sorted(conda) == ["pip", "python=3.11"], f"environment.yml must list only python=3.11 and pip, got {conda}"
    assert [p.replace(" ", "") for p in pip] == ["-e.[test]"], (
        f"environment.yml must pip-install '-e .[test]', got {pip}")


def test_environment_python_satisfies_requires_python():
    conda, _ = _conda_and_pip(ENVIRONMENT)
    version = next(d.split("=", 1)[1] for d in conda if d.startswith("python="))
    assert version in SpecifierSet(PYPROJECT["requires-python"]), (version, PYPROJECT["requires-python"])
    assert "3.11" in SpecifierSet(PYPROJECT["requires-python"])


def test_makefile_installs_from_pyproject_and_has_the_documented_targets():
    makefile = (ROOT / "Makefile").read_text()
    assert 'pip install' in makefile and '-e ".[test]"' in makefile
    assert re.search(r"^\$\(STAMP\): pyproject\.toml", makefile, flags=re.M), (
        "the venv stamp must depend on pyproject.toml")
    targets = set(re.findall(r"^([a-z]+):", makefile, flags=re.M))
    assert {"dashboards", "test", "lab", "bench", "screenshots"} <= targets


@pytest.mark.parametrize("command", ["make dashboards", "make test"])
def test_readme_gives_the_two_commands(command):
    assert command in README


def test_readme_mentions_every_notebook():
    assert NOTEBOOKS
    missing = [nb for nb in NOTEBOOKS if nb not in README]
    assert not missing, f"README.md does not mention {missing}"
