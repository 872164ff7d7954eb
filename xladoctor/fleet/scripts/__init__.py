"""Scripts run inside another interpreter (the Ray cluster's Python); they import nothing of xladoctor."""
