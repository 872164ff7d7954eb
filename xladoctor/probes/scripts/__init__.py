"""Scripts that run inside the target interpreter: stdlib only, no xladoctor import, Python 3.8+."""
