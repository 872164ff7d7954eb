"""`xladoctor explain`: from a log, a traceback or a notebook's output to the root cause and the fix."""
