"""Facts: the frozen snapshot of one environment (model, system), loading it, and views derived from it.

Nothing here touches the system: probes/ gather, this package describes and reads.
"""

from xladoctor.facts.load import FactsError, facts_from_json, load_facts
from xladoctor.facts.model import SCHEMA_VERSION, Distribution, Facts, ProbeRecord, PythonFacts

__all__ = [
    "SCHEMA_VERSION",
    "Distribution",
    "Facts",
    "FactsError",
    "ProbeRecord",
    "PythonFacts",
    "facts_from_json",
    "load_facts",
]
