"""xladoctor: tells whether this Python environment can really run the compiled ML stack."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
