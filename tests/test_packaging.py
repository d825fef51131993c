"""pyproject.toml is the single source of dependencies; environment.yml, the Makefile and
the README agree with it and with notebooks/."""

from __future__ import annotations

import concurrent.futures
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
    for stamp in ("STAMP", "DASH_STAMP"):
        assert re.search(rf"^\$\({stamp}\): pyproject\.toml", makefile, flags=re.M), (
            f"the venv stamp {stamp} must depend on pyproject.toml")
    # the dashboards install only what they need; the tests everything
    assert re.search(r"^dashboards: \$\(DASH_STAMP\)", makefile, flags=re.M)
    assert '-e ".[dashboards,profiles]"' in makefile
    targets = set(re.findall(r"^([a-z]+):", makefile, flags=re.M))
    assert {"dashboards", "test", "lab", "bench", "screenshots"} <= targets


@pytest.mark.parametrize("command", ["make dashboards", "make test"])
def test_readme_gives_the_two_commands(command):
    assert command in README


def test_readme_mentions_every_notebook():
    assert NOTEBOOKS
    missing = [nb for nb in NOTEBOOKS if nb not in README]
    assert not missing, f"README.md does not mention {missing}"


def _copy_of_the_checkout(target: Path) -> Path:
    """The files git knows (tracked, and new ones not ignored), copied to ``target``: a build
    from it cannot pick up build/ leftovers or files nobody committed (ignored ones)."""
    import shutil

    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            timeout=60)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.mark.slow
def _draw_dashboard_00(url: str) -> None:
    """Open dashboard 00 of the server at ``url`` in chromium and check its figure is drawn, with no problem."""
    from playwright.sync_api import sync_playwright

    from workbench.ui import serve
    from workbench.ui.drive import DASHBOARDS, open_dashboard, page_problems

    with sync_playwright() as playwright:
        browser = serve.launch_chromium(playwright)
        try:
            tab = browser.new_page()
            tab.errors = []  # what page_problems reads (tests/browser/conftest.py records the same)
            tab.on("console", lambda msg: tab.errors.append(f"console: {msg.text}") if msg.type == "error" else None)
            tab.on("pageerror", lambda exc: tab.errors.append(f"uncaught: {exc}"))
            open_dashboard(tab, url + "voila/render/00_predict_my_runs.ipynb",
                           DASHBOARDS["00_predict_my_runs.ipynb"].load_timeout_s)
            assert not page_problems(tab), page_problems(tab)
        finally:
            browser.close()


def test_a_wheel_serves_the_dashboards_outside_the_checkout(tmp_path):
    """Build the wheel, install it into a fresh venv outside the checkout, run ``workbench serve``
    from another folder, and load the course page and dashboard 00 (its notebook executed by a
    kernel of that venv, its figure drawn in chromium when there is one).

    The venv gets its dependencies from this environment's site-packages through a .pth file
    (nothing is downloaded) and Voila's templates through JUPYTER_PATH (pip would put them in the
    venv's own share/jupyter); the package itself, its notebooks, voila.json, data and tables
    come only from the wheel."""
    import os
    import site
    import socket
    import time
    import urllib.request

    from workbench.ui import serve

    # no PYTHONPATH: the checkout (and its workbench.egg-info) must be invisible to pip and the server
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME") and not k.startswith(
        ("PYTEST_", "_PYTEST", "COV_CORE_"))}
    source = _copy_of_the_checkout(tmp_path / "src")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(source), "-w",
                            str(tmp_path / "dist")], capture_output=True, text=True, timeout=600, env=env)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((tmp_path / "dist").glob("workbench-*.whl"))

    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120, env=env)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # installed before the .pth exists: pip must not see (let alone replace) this environment's workbench
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300, env=env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert (venv / "bin" / "workbench").is_file(), installed.stdout + installed.stderr
    (Path(purelib) / "workbench_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")
    where = subprocess.run(
        [str(python), "-c", "import workbench, workbench.io.locations as l, workbench.ui.serve as s; "
         "print(workbench.__file__); print(l.RESOURCE_ROOT); print((l.BENCH_RESULTS_DIR / 'scaling_curves.csv')"
         ".is_file(), len(list(l.NOTEBOOK_DIR.glob('*.ipynb'))), l.VOILA_CONFIG.is_file(), s.TEMPLATE_DIR.is_dir())"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert where.returncode == 0, where.stderr[-3000:]
    package, resources, found = where.stdout.splitlines()
    assert package.startswith(str(venv)) and resources == str(Path(package).parent / "_shipped"), where.stdout
    assert found == f"True {len(NOTEBOOKS)} True True", found

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen([str(venv / "bin" / "workbench"), "serve", "--port", str(port), "--no-browser",
                                   "--VoilaConfiguration.default_pool_size=0", "--max-kernels", "4"],
                                  cwd=elsewhere, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, log_path.read_text()[-3000:]
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    course = response.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                time.sleep(0.5)
        assert "00_predict_my_runs" in course and "09_fractal_extrapolation" in course
        with urllib.request.urlopen(url + "course/screenshots/00_predict_my_runs.png", timeout=30) as response:
            assert response.status == 200 and response.read(8) == b"\x89PNG\r\n\x1a\n"
        with urllib.request.urlopen(url + "voila/render/00_predict_my_runs.ipynb", timeout=300) as response:
            page = response.read().decode()
        assert "application/vnd.jupyter.widget-view+json" in page  # the dashboard, rendered by a kernel
        for failure in ("Traceback", "There was an error when executing cell"):
            assert failure not in page, (failure, log_path.read_text()[-3000:])
        log = log_path.read_text()
        assert "Traceback" not in log and "is not trusted" not in log
        assert str(venv) in " ".join(Path(f"/proc/{server.pid}/cmdline").read_text().split("\0"))

        if serve.CHROMIUM.exists():  # and in a browser: the dashboard's figure drawn
            # in a thread of its own: the browser tests' session-wide Playwright keeps an asyncio loop
            # running in this one, where Playwright's sync API refuses to start
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                pool.submit(_draw_dashboard_00, url).result()
    finally:
        serve._stop(server)
