"""Remedies: the structured fixes of xladoctor/fix.py, rendered for an installer (render.py) or a notebook
(notebook.py), merged into one plan of pins (plan.py, pins.py) that keeps each build's label (builds.py) and respects
hosted platforms (hosted.py); templates.py fills signature fixes."""
