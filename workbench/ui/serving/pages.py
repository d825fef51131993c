"""What the dashboards' server answers itself, beside Voila's routes.

The course page at the root (:func:`course_page`, :class:`CoursePageHandler`), the lessons'
screenshots, Voila's tree pages redirected there, the render handler that refuses pages beyond
the kernel cap (:func:`capped_render_handler`), and the identity provider that lets a closed
tab shut its kernel down (:class:`WorkbenchIdentityProvider`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from pathlib import Path

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.base.handlers import JupyterHandler, path_regex
from jupyter_server.utils import url_path_join
from tornado import web

from workbench.course.landing import SCREENSHOT_ROUTE, landing_html, server_full_html, voila_url
from workbench.course.path import COURSE
from workbench.io.locations import SCREENSHOT_DIR
from workbench.ui.serving.kernels import PAGE_SLOT

__all__ = [
    "CoursePageHandler",
    "WorkbenchIdentityProvider",
    "capped_render_handler",
    "capped_routes",
    "course_handlers",
    "course_page",
]

class WorkbenchIdentityProvider(PasswordIdentityProvider):
    """Identity provider that also gives every dashboard page its ``_xsrf`` cookie.

    jupyter_server's token/password identity provider (``Voila.identity_provider_class``).

    When a tab closes, Voila 0.5.13's page posts ``_xsrf=<cookie>`` to
    ``voila/api/shutdown/<kernel>`` (``navigator.sendBeacon`` in its widget manager), but the
    page handler never creates that cookie (only the tree page does), so every such request
    failed with ``403 '_xsrf' argument missing`` and the kernel lived on until culled.
    Creating the cookie here keeps the XSRF check (cookie and form field must match, Origin
    must match Host) and lets the shutdown succeed.
    """

    async def get_user(self, handler):
        """Return the request's user, setting the ``_xsrf`` cookie on dashboard page requests.

        Parameters
        ----------
        handler : tornado.web.RequestHandler
            The handler of the request.

        Returns
        -------
        User or None
            As jupyter_server's ``PasswordIdentityProvider.get_user``.
        """
        user = super().get_user(handler)
        if isinstance(user, Awaitable):
            user = await user
        if user is not None and handler.request.method == "GET":
            from voila.handler import VoilaHandler

            if isinstance(handler, VoilaHandler):
                # tornado's xsrf_token reads current_user, which jupyter_server sets right
                # after this call returns: set it first (same value).
                handler.current_user = user
                handler.xsrf_token  # noqa: B018 - reading it sets the cookie
        return user


# --------------------------------------------------------------------------- course page


def course_page(base_url: str, notebook_dir: Path) -> str:
    """Return the page served at the root: the course's lessons found in ``notebook_dir``, in order.

    Notebooks of the folder that are not lessons (e.g. a folder of one's own) are listed
    after them with a link each, so that every notebook served stays reachable.

    Parameters
    ----------
    base_url : str
        The server's base URL (``"/"`` for ``make dashboards``).
    notebook_dir : pathlib.Path
        The folder served.

    Returns
    -------
    str
        The HTML page (:func:`~workbench.course.landing.landing_html`).
    """
    names = sorted(path.name for path in notebook_dir.glob("*.ipynb") if not path.name.startswith("."))
    lessons = [lesson for lesson in COURSE if lesson.filename in names]
    taught = {lesson.filename for lesson in lessons}
    others = [(name, voila_url(base_url, name.removesuffix(".ipynb"))) for name in names if name not in taught]
    return landing_html(base_url, lessons=lessons, others=others)


class _PlainErrors(JupyterHandler):
    """A ``JupyterHandler`` whose error pages are one line of text.

    jupyter_server's error page is a template Voila's server cannot render (it has no
    ``static_path``): the refusal (403 for a foreign Host, 404) would end in a traceback in
    the log instead of an answer.
    """

    def write_error(self, status_code: int, **kwargs) -> None:
        """Answer ``status_code`` with its reason as plain text."""
        self.set_header("Content-Type", "text/plain; charset=UTF-8")
        self.finish(f"{status_code} {self._reason}\n")


class CoursePageHandler(_PlainErrors):
    """The root of the server: :func:`course_page` instead of Voila's list of files.

    A ``JupyterHandler``: the Host check (DNS rebinding) and the token or password apply as
    to every dashboard page.
    """

    def initialize(self, notebook_dir: str) -> None:
        """Keep the folder served (tornado calls this with the handler's arguments).

        Parameters
        ----------
        notebook_dir : str
            The folder served.
        """
        self.notebook_dir = Path(notebook_dir)

    @web.authenticated
    def get(self) -> None:
        """Send the course page (built on each request: a new notebook appears without a restart)."""
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(course_page(self.base_url, self.notebook_dir))


class _ScreenshotHandler(_PlainErrors, web.StaticFileHandler):
    """The screenshots of ``docs/screenshots`` for the course page's thumbnails (Host check and login apply).

    Not jupyter_server's ``AuthenticatedFileHandler``: it refuses a GET without a
    ``Referer`` header, which browsers may leave out for images.
    """

    @web.authenticated
    def get(self, path: str, include_body: bool = True):
        """Send one screenshot."""
        return web.StaticFileHandler.get(self, path, include_body)


class _ToCoursePageHandler(_PlainErrors):
    """Voila's tree pages (``voila/tree/...``): redirected to the course page."""

    @web.authenticated
    def get(self, path: str = "") -> None:
        """Redirect to the root."""
        self.redirect(self.base_url)


@functools.cache
def capped_render_handler():
    """Return Voila's dashboard handler class with the capacity check in front of it (built once).

    A subclass of ``voila.tornado.handler.TornadoVoilaHandler`` (``voila/render/<notebook>``):
    before Voila starts or takes a kernel,
    :meth:`~workbench.ui.serving.kernels.WorkbenchKernelManager.admit_page` decides; a refused
    page gets ``503 Service Unavailable`` with ``Retry-After`` and
    :func:`~workbench.course.landing.server_full_html`, and no kernel.  The admitted page's
    slot is passed to the kernel manager through a context variable, so that the kernel
    Voila then starts (or takes from the pool) is counted as this page's.
    """
    from voila.tornado.handler import TornadoVoilaHandler

    class CappedVoilaHandler(TornadoVoilaHandler):
        @web.authenticated
        async def get(self, path=None):
            manager = self.kernel_manager
            if not hasattr(manager, "admit_page"):  # another kernel manager: no cap
                return await super().get(path)
            page, refusal = manager.admit_page(self.request.remote_ip or "?")
            if refusal is not None:
                retry = max(1, int(manager.full_retry_after))
                self.log.warning("Refused %s to %s: %s", self.request.path, self.request.remote_ip, refusal)
                self.set_status(503)
                self.set_header("Retry-After", str(retry))
                self.set_header("Content-Type", "text/html; charset=UTF-8")
                self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
                return self.finish(server_full_html(self.base_url, retry, refusal))
            token = PAGE_SLOT.set(page)
            try:
                return await super().get(path)
            finally:
                PAGE_SLOT.reset(token)
                manager.release_page(page)

    return CappedVoilaHandler


def capped_routes(handlers: list) -> list:
    """Return Voila's routes with its dashboard handler replaced by :func:`capped_render_handler`'s.

    Parameters
    ----------
    handlers : list of tuple
        Voila's tornado routes (``Voila.init_handlers()``).

    Returns
    -------
    list of tuple
        The same routes, ``TornadoVoilaHandler`` replaced.
    """
    from voila.tornado.handler import TornadoVoilaHandler

    return [(route[0], capped_render_handler(), *route[2:]) if len(route) > 1 and route[1] is TornadoVoilaHandler
            else route for route in handlers]


def course_handlers(server_url: str, notebook_dir: Path) -> list[tuple]:
    """Return the tornado routes of the course page, its screenshots and the redirected tree pages.

    They go before Voila's own (tornado takes the first route that matches).

    Parameters
    ----------
    server_url : str
        The server's base URL.
    notebook_dir : pathlib.Path
        The folder served.

    Returns
    -------
    list of tuple
        ``(pattern, handler class[, arguments])`` routes.
    """
    return [
        (server_url, CoursePageHandler, {"notebook_dir": str(notebook_dir)}),
        (url_path_join(server_url, r"/voila/tree" + path_regex), _ToCoursePageHandler),
        (url_path_join(server_url, SCREENSHOT_ROUTE, "(.*)"), _ScreenshotHandler,
         {"path": str(SCREENSHOT_DIR)}),
    ]
