"""Checks, one module per area (installed as xladoctor.checks).

xladoctor.diagnosis.registry.all_checks imports every module here whose name does not start with `_`; a
module registers its checks with `check = area("name")` and `@check(...)`. See CONTRIBUTING.md.
"""
