"""Smoke tests: the smallest real workload through each layer, each in its own child process."""
