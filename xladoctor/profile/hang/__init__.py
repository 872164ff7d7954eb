"""When a job hangs: each rank's stacks and collectives gathered, compared, and the difference named.

`gather` and `tools` touch the processes (py-spy or pystack from xladoctor's own environment, the profile hook's
dump, faulthandler); `stacks`, `collectives`, `classify` and `analysis` are pure functions of what they read.
"""
