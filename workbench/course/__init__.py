"""The course around the dashboards: exercises that check themselves against the models.

:mod:`workbench.course.exercise` defines an exercise as data (question, the answer a
student gives, a checker that computes the right answer with the workbench's own models,
and a hint for a wrong answer); :mod:`workbench.course.exercises` holds the exercises of
each notebook.  :mod:`workbench.course.path` lists the notebooks as lessons in course order
and :mod:`workbench.course.landing` writes the course page from them (the root of
``make dashboards`` and of the static site).  Nothing here imports ipywidgets: the answer boxes are in
:mod:`workbench.ui.exercises`.
"""
