"""The course page: every lesson of :data:`~workbench.course.path.COURSE` in order, as one HTML page.

``make dashboards`` serves it at its root (``workbench.ui.serve``), in place of Voila's list
of files; the static site writes the same page with its own links.  For each lesson the page
shows its title, what it teaches, about how long it takes, the lessons to take first (links
to their entries on the page), whether it has exercises, the dashboard's screenshot and a
link that opens it.

Nothing here imports a widget: :func:`landing_html` returns a complete page as a string.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from workbench.course.exercises import notebooks_with_exercises
from workbench.course.path import COURSE, Lesson

__all__ = ["SCREENSHOT_ROUTE", "landing_html", "screenshot_url", "server_full_html", "voila_url"]

#: Where the server publishes ``docs/screenshots/`` (below its base URL).
SCREENSHOT_ROUTE = "course/screenshots/"

#: The page's icon, inline: a browser asks every page for one, and neither the server nor the
#: static site has a favicon.ico (a 404 in the console otherwise).
_ICON = ("data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'>"
         "<path d='M1 15 L6 8 L10 11 L15 2' stroke='%230969da' stroke-width='2.5' fill='none'/></svg>")

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328;
       background: #f6f8fa; }
main { max-width: 960px; margin: 0 auto; padding: 24px 16px 48px; }
h1 { margin: 0 0 4px; font-size: 1.8rem; }
.intro { margin: 0 0 20px; color: #57606a; }
ol.course { list-style: none; padding: 0; margin: 0; }
li.lesson { display: flex; gap: 16px; background: #fff; border: 1px solid #d0d7de; border-radius: 8px;
            padding: 12px; margin-bottom: 12px; }
li.lesson:target { border-color: #0969da; box-shadow: 0 0 0 2px #0969da33; }
.thumbnail img { width: 240px; height: 150px; object-fit: cover; object-position: top left;
                 border: 1px solid #d0d7de; border-radius: 4px; display: block; }
.body { flex: 1; min-width: 0; }
.body h2 { margin: 0 0 6px; font-size: 1.15rem; }
.number { color: #57606a; font-variant-numeric: tabular-nums; margin-right: 6px; }
.teaches { margin: 0 0 8px; }
.meta { margin: 0 0 8px; color: #57606a; font-size: 0.92rem; }
a { color: #0969da; }
a.open { display: inline-block; padding: 4px 12px; border-radius: 6px; background: #0969da; color: #fff;
         text-decoration: none; font-weight: 600; }
a.open:hover { background: #0550ae; }
ul.others { padding-left: 20px; }
@media (max-width: 640px) { li.lesson { flex-direction: column; } .thumbnail img { width: 100%; } }
"""


def voila_url(base_url: str, notebook: str) -> str:
    """Return the address at which Voila renders ``notebook`` (a stem) below ``base_url``.

    Parameters
    ----------
    base_url : str
        The server's base URL.
    notebook : str
        The notebook's stem.
    """
    return f"{_slash(base_url)}voila/render/{notebook}.ipynb"


def screenshot_url(base_url: str, lesson: Lesson) -> str:
    """Return the address of ``lesson``'s screenshot as the server publishes it (:data:`SCREENSHOT_ROUTE`).

    Parameters
    ----------
    base_url : str
        The server's base URL.
    lesson : Lesson
        The lesson.
    """
    return f"{_slash(base_url)}{SCREENSHOT_ROUTE}{lesson.notebook}.png"


def _slash(base_url: str) -> str:
    return base_url if base_url.endswith("/") else base_url + "/"


def _minutes(minutes: int) -> str:
    return f"about {minutes} min" if minutes < 60 else f"about {minutes // 60} h {minutes % 60:02d} min"


def _lesson_html(number: int, lesson: Lesson, dashboard: str, thumbnail: str, titles: dict[str, str],
                 exercises: bool, open_label: str) -> str:
    prerequisites = ", ".join(
        f'<a class="prerequisite" href="#{escape(stem)}">{escape(titles.get(stem, stem))}</a>'
        for stem in lesson.prerequisites
    ) or "none"
    title = escape(lesson.title)
    exercise_note = ' · <span class="exercises">with exercises</span>' if exercises else ""
    return (
        f'<li class="lesson" id="{escape(lesson.notebook)}">\n'
        f'  <a class="thumbnail" href="{escape(dashboard)}" tabindex="-1">'
        f'<img src="{escape(thumbnail)}" alt="Screenshot of the dashboard {title}" loading="lazy"></a>\n'
        f'  <div class="body">\n'
        f'    <h2><span class="number">{number:02d}</span>{title}</h2>\n'
        f'    <p class="teaches">{escape(lesson.teaches)}</p>\n'
        f'    <p class="meta"><span class="minutes">{_minutes(lesson.minutes)}</span> · '
        f'<span class="prerequisites">take first: {prerequisites}</span>'
        f"{exercise_note}</p>\n"
        f'    <a class="open" href="{escape(dashboard)}">{escape(open_label)}</a>\n'
        f"  </div>\n"
        f"</li>"
    )


def landing_html(
    base_url: str = "/",
    *,
    lessons: Sequence[Lesson] = COURSE,
    dashboard_url: Callable[[Lesson], str] | None = None,
    thumbnail_url: Callable[[Lesson], str] | None = None,
    others: Sequence[tuple[str, str]] = (),
    title: str = "Parallel performance modelling: the course",
    open_label: str = "Open the dashboard",
) -> str:
    """Return the course page as a complete HTML document.

    Parameters
    ----------
    base_url : str, default "/"
        The server's base URL (``"/"`` for ``make dashboards``); the default links are below it.
    lessons : sequence of Lesson, default COURSE
        The lessons, in course order (:data:`~workbench.course.path.COURSE`).
    dashboard_url : callable, optional
        ``dashboard_url(lesson)`` gives the link that opens a lesson; default: its Voila
        render address (:func:`voila_url`).  The static site passes its rendered pages.
    thumbnail_url : callable, optional
        ``thumbnail_url(lesson)`` gives its screenshot's address; default: where the server
        publishes it (:func:`screenshot_url`).
    others : sequence of (str, str), default ()
        ``(name, address)`` of notebooks served that are not lessons, listed after the course.
    title : str, default "Parallel performance modelling: the course"
        The page's heading.
    open_label : str, default "Open the dashboard"
        Text of each lesson's link (the static site: its rendered notebook, not a live dashboard).

    Returns
    -------
    str
        The page; every text is HTML-escaped.
    """
    dashboard_url = dashboard_url or (lambda lesson: voila_url(base_url, lesson.notebook))
    thumbnail_url = thumbnail_url or (lambda lesson: screenshot_url(base_url, lesson))
    titles = {lesson.notebook: lesson.title for lesson in lessons}
    with_exercises = set(notebooks_with_exercises())
    items = "\n".join(
        _lesson_html(number, lesson, dashboard_url(lesson), thumbnail_url(lesson), titles,
                     lesson.notebook in with_exercises, open_label)
        for number, lesson in enumerate(lessons)
    )
    total = sum(lesson.minutes for lesson in lessons)
    intro = (
        f"{len(lessons)} lessons, {_minutes(total)} in all. Each opens as a dashboard: its controls and "
        "live figures come first, the explanations below them, and exercises at the end check your answers."
    ) if lessons else "No lesson of the course is in the folder served."
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f'<link rel="icon" href="{escape(_ICON)}">',
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="intro">{escape(intro)}</p>',
        f'<ol class="course">\n{items}\n</ol>' if lessons else "",
    ]
    if others:
        links = "\n".join(f'<li><a class="other" href="{escape(url)}">{escape(name)}</a></li>' for name, url in others)
        parts += ["<h2>More notebooks in this folder</h2>", f'<ul class="others">\n{links}\n</ul>']
    parts += ["</main>", "</body>", "</html>", ""]
    return "\n".join(part for part in parts if part)


def server_full_html(base_url: str, retry_after_s: int, reason: str) -> str:
    """Return the page shown instead of a dashboard when the server holds as many kernels as it may.

    ``reason`` is one sentence (which limit was reached); the page says to try again in
    ``retry_after_s`` seconds and reloads itself then.

    Parameters
    ----------
    base_url : str
        The server's base URL (the course page's link).
    retry_after_s : int
        Seconds after which the page reloads itself.
    reason : str
        Which limit was reached, one sentence.
    """
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{int(retry_after_s)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Server full: try again in {int(retry_after_s)} s</title>
<link rel="icon" href="{_ICON}"><style>{_STYLE}</style></head>
<body><main>
<h1>Server full: try again in {int(retry_after_s)} s</h1>
<p class="intro">{escape(reason)} Every open dashboard keeps a Python process on the server; this page
reloads itself in {int(retry_after_s)} s, when pages that were closed have given theirs back.
Closing dashboards you no longer use frees a place at once.</p>
<p><a href="{escape(_slash(base_url))}">Back to the course page</a></p>
</main></body></html>
"""
