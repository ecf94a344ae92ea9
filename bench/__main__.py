"""`python -m bench` runs the benchmarks; `python -m bench --report` writes the
report again from the last run's figures."""

import pickle
import sys

from .config import RESULTS
from .processes import stop_all
from .report import report
from .runner import main

if __name__ == "__main__":
    if sys.argv[1:] == ["--report"]:  # the last run's figures with the current notes
        report(pickle.loads(RESULTS.read_bytes()))
        sys.exit()
    try:
        main()
    finally:
        stop_all()
