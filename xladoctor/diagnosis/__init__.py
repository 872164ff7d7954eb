"""The diagnosis stage: the one pipeline (pipeline.py), the check registry and the inputs checks ask for."""
