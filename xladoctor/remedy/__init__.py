"""Remedies: structured fixes (fix.py), rendered for an installer (render.py) or a notebook (notebook.py),
merged into one plan (plan.py) that respects hosted platforms (hosted.py); templates.py fills signature fixes."""
