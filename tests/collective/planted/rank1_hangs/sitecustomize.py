# Planted fault (tests only): rank 1 of an xladoctor collective run hangs while its interpreter starts, before the
# worker's first line, as a process stuck in an import or a site hook would. Other processes start normally.
import os
import time

if os.environ.get("RANK") == "1" and os.environ.get("XLADOCTOR_COLLECTIVE_OUT"):
    time.sleep(1000)
