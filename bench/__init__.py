"""The benchmarks: scripts to run (python bench/NAME.py), importable so that a test can run
a short version of one."""
