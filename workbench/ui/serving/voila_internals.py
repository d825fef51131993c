"""Voila's private members that the server overrides, and the check that they are those it was written for.

Written against Voila 0.5.13 (:data:`VOILA_TESTED`): :func:`voila_internals_problems` names
every member that changed, and :func:`install_voila_overrides` refuses to install over one.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from jupyter_server.services.contents.largefilemanager import LargeFileManager
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from workbench.ui.serving import ServeError
from workbench.ui.serving.kernels import class_pool_factory

__all__ = [
    "TEMPLATE_DIR",
    "VOILA_TESTED",
    "WorkbenchContentsManager",
    "install_class_pool",
    "install_voila_overrides",
    "voila_internals_problems",
]

#: Templates found before Voila's (``index.html.j2``, ``page.html``): Voila's lab template
#: without the Font Awesome stylesheets it asks cdn.jsdelivr.net for (its own bundle already
#: carries Font Awesome 5), so that no page requests anything off the machine.
TEMPLATE_DIR = Path(__file__).parents[1] / "voila_templates"

class WorkbenchContentsManager(LargeFileManager):
    """Voila's contents manager without notebook signatures: the dashboards are always executed afresh.

    jupyter_server checks a notebook's signature (the user's ``nbsignatures.db``) every time
    it reads one, so that the classic notebook shows stored HTML/JavaScript outputs only of
    notebooks the user ran, and logs ``Notebook ... is not trusted`` for the others: once
    per notebook and page here, for notebooks saved without outputs.  Voila never shows
    stored outputs (it executes the notebook and marks the fresh outputs trusted itself), so
    the check decides nothing: every cell is marked untrusted, as the check did, without the
    database lookup and without the warning.  Installed by :func:`install_voila_overrides`
    (Voila 0.5.13 creates ``voila.app.LargeFileManager`` itself; there is no setting).
    """

    def mark_trusted_cells(self, nb, path=""):
        """Mark every cell untrusted (no signature lookup, no log line).

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The notebook read.
        path : str, default ""
            Its path (unused: no signature is looked up).
        """
        self.notary.mark_cells(nb, False)


#: The Voila releases whose private members this module overrides or relies on (pyproject.toml
#: pins the same range); :func:`voila_internals_problems` checks the members themselves.
VOILA_TESTED = ">=0.5.13,<0.6"


def _parameters(function) -> list[str]:
    """Return the parameter names of ``function`` (empty when it has no signature)."""
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


def _source(obj) -> str:
    """Return the source of ``obj`` (empty when it has none)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def _kernel_pool_problems() -> list[str]:
    """Return the problems of :func:`voila_internals_problems` in Voila's kernel pool (VoilaKernelManager)."""
    import voila.app
    import voila.voila_kernel_manager as vkm

    problems = []
    params, source = _parameters, _source

    def expect(condition: bool, what: str) -> None:
        if not condition:
            problems.append(what)

    factory = getattr(vkm, "voila_kernel_manager_factory", None)
    expect(factory is not None and params(factory)[:3] == ["base_class", "preheat_kernel", "default_pool_size"],
           "voila.voila_kernel_manager.voila_kernel_manager_factory(base_class, preheat_kernel, default_pool_size, "
           "...): the class pool wraps it")
    expect(getattr(voila.app, "voila_kernel_manager_factory", None) is not None,
           "voila.app.voila_kernel_manager_factory: install_class_pool replaces it there")
    if factory is not None:
        manager = factory(AsyncMappingKernelManager, True, 1)
        for name, expected in (("get_rendered_notebook", ["self", "notebook_name", "extra_kernel_env_variables"]),
                               ("fill_if_needed", ["self", "delay", "notebook_name"]),
                               ("_initialize", ["self", "notebook_path", "kernel_id"]),
                               ("get_pool_size", ["self", "notebook_name"]),
                               ("cull_kernel_if_idle", ["self", "kernel_id"]),
                               ("shutdown_kernel", ["self", "kernel_id"])):
            got = params(getattr(manager, name, None))
            expect(got[:len(expected)] == expected,
                   f"VoilaKernelManager.{name}{tuple(expected[1:])}: found {tuple(got[1:])}")
        text = source(manager)
        for fragment, why in (("self._pools", "the pools (_pools: notebook -> list of heating tasks)"),
                              ("return render_task, renderer.rendered_cache, kernel_id",
                               "get_rendered_notebook returns (render_task, rendered_cache, kernel_id)"),
                              ('"kernel_id": kernel_id', "_initialize returns a dict with task, renderer, kernel_id"),
                              ("self.fill_if_needed(", "get_rendered_notebook refills through fill_if_needed"),
                              ("kernel_pools_config", "pool sizes in kernel_pools_config")):
            expect(fragment in text, f"VoilaKernelManager: {why} (source: {fragment!r})")
    return problems


def _lab_template_links_font_awesome() -> bool:
    """Whether Voila's lab template still has the Font Awesome links our template removes."""
    import voila

    lab = Path(voila.__file__).resolve().parents[3] / "share/jupyter/voila/templates/lab/index.html.j2"
    candidates = [lab, *(Path(p) / "voila/templates/lab/index.html.j2" for p in __import__("jupyter_core.paths")
                         .paths.jupyter_path())]
    template = next((c for c in candidates if c.is_file()), None)
    ours = (TEMPLATE_DIR / "index.html.j2").read_text()
    links = [line.split("'")[1] for line in ours.splitlines() if line.strip().startswith("| replace('<link")]
    return bool(template is not None and links and all(link in template.read_text() for link in links))


def voila_internals_problems() -> list[str]:
    """Return what changed in the private Voila / jupyter_server members this module builds on (empty: none).

    Written against Voila 0.5.13 (:data:`VOILA_TESTED`).  Each entry names the member and what
    is expected of it; :func:`build_app` refuses to start when the list is not empty, and
    ``tests/test_serve.py`` fails with it.
    """
    import voila
    import voila.app
    import voila.handler
    import voila.tornado.handler
    from jupyter_server.services.contents.manager import ContentsManager
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager

    problems = _kernel_pool_problems()
    params, source = _parameters, _source

    def expect(condition: bool, what: str) -> None:
        if not condition:
            problems.append(what)

    app_source = source(voila.app.Voila)
    expect("LargeFileManager(parent=self)" in app_source and hasattr(voila.app, "LargeFileManager"),
           "voila.app.Voila.init_settings creates voila.app.LargeFileManager(parent=self): WorkbenchContentsManager "
           "replaces it there")
    expect("TornadoVoilaHandler," in app_source and r'"/voila/render/(.*)"' in app_source,
           "voila.app.Voila.init_handlers routes /voila/render/(.*) to TornadoVoilaHandler: the capped handler "
           "replaces it")
    expect(hasattr(voila.app.Voila, "init_handlers") and hasattr(voila.app.Voila, "template_paths"),
           "voila.app.Voila.init_handlers and .template_paths")
    expect(params(getattr(voila.tornado.handler.TornadoVoilaHandler, "get", None))[:2] == ["self", "path"],
           "voila.tornado.handler.TornadoVoilaHandler.get(self, path)")
    expect(issubclass(voila.tornado.handler.TornadoVoilaHandler, voila.handler.VoilaHandler),
           "TornadoVoilaHandler subclasses voila.handler.VoilaHandler (the identity provider sets the _xsrf cookie "
           "for it)")
    expect(_lab_template_links_font_awesome(),
           "voila/templates/lab/index.html.j2 links Font Awesome from cdn.jsdelivr.net as "
           "workbench/ui/voila_templates/index.html.j2 removes it")
    expect(params(ContentsManager.mark_trusted_cells)[:3] == ["self", "nb", "path"],
           "jupyter_server ContentsManager.mark_trusted_cells(self, nb, path)")
    for name in ("notify_connect", "notify_disconnect", "cull_kernel_if_idle", "start_kernel", "shutdown_kernel"):
        expect(hasattr(MappingKernelManager, name), f"jupyter_server MappingKernelManager.{name}")
    expect("_kernel_connections" in source(MappingKernelManager),
           "jupyter_server MappingKernelManager._kernel_connections (connections per kernel)")
    return problems


def install_voila_overrides() -> None:
    """Install :func:`install_class_pool` and :class:`WorkbenchContentsManager` into ``voila.app`` (idempotent).

    Raises :class:`ServeError` naming what changed when Voila's internals are not those this
    module was written against (:func:`voila_internals_problems`).
    """
    import voila
    import voila.app

    problems = voila_internals_problems()
    if problems:
        raise ServeError(f"Voila {voila.__version__} is not the Voila this server was written against "
                         f"({VOILA_TESTED}); these internals changed:\n  - " + "\n  - ".join(problems)
                         + "\nInstall a Voila in that range (pip install 'voila" + VOILA_TESTED + "').")
    install_class_pool()
    voila.app.LargeFileManager = WorkbenchContentsManager


def install_class_pool() -> None:
    """Make Voila build its kernel manager with :func:`class_pool_factory` (idempotent)."""
    import voila.app

    if not getattr(voila.app.voila_kernel_manager_factory, "wraps_for_class", False):
        voila.app.voila_kernel_manager_factory = class_pool_factory(voila.app.voila_kernel_manager_factory)
