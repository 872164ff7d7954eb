"""Compatibility matrix data files (JSON), shipped as package data of xladoctor.compat_matrix."""
