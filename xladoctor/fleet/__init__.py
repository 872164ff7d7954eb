"""Fleets: compare the snapshots of every worker of one job and report version and configuration skew."""
