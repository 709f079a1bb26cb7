"""Seed 003's experiment as a benchmark: `python -m benchmarks.paper [--quick]`.

The experiment itself ships with the library (`hitbox.experiment`, run by `hitbox demo`);
this entry point writes its CSV and plot under benchmarks/results/<machine>/.
"""

import sys
from pathlib import Path

from benchmarks.timing import machine
from hitbox import experiment


def run(quick=False, out_dir=None, repeats=None):
    out = out_dir or Path(__file__).parent / "results" / machine()
    return experiment.run(quick=quick, out_dir=out, repeats=repeats)


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--out" not in argv:
        argv += ["--out", str(Path(__file__).parent / "results" / machine())]
    experiment.main(argv)
