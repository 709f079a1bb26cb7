"""Run benchmarks, print a table, write CSV under results/<machine>/<bench>.csv.

    python -m benchmarks.run                 # every bench_*.py and tori
    python -m benchmarks.run aabb obb --quick

Each benchmark module has ``run(quick=False) -> list[dict]``; every row names its baseline
measured in the same run, because absolute times drift on shared machines.
"""

import argparse
import importlib
import pkgutil
from pathlib import Path

from benchmarks.timing import environment, machine
from hitbox.report import write_rows

HERE = Path(__file__).parent


def available():
    names = [m.name for m in pkgutil.iter_modules([str(HERE)])]
    return sorted(n.removeprefix("bench_") for n in names if n.startswith("bench_"))


def write_csv(name, rows, folder=None):
    folder = Path(folder or HERE / "results" / machine())
    folder.mkdir(parents=True, exist_ok=True)
    return write_rows(folder / f"{name}.csv", rows)


def print_table(name, rows):
    keys = list(dict.fromkeys(k for row in rows for k in row))
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None
    if Console is None or len(keys) > 8:  # too wide for a table: one record per row
        print(f"== {name}")
        for row in rows:
            print("  " + "  ".join(f"{k}={_fmt(v)}" for k, v in row.items()))
        return
    table = Table(title=name)
    for k in keys:
        table.add_column(k)
    for row in rows:
        table.add_row(*(_fmt(row.get(k)) for k in keys))
    Console().print(table)


def _fmt(value):
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", help=f"benchmarks to run: {', '.join(available())}"
    )
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, for a smoke run"
    )
    parser.add_argument("--out", help="folder for the CSV files")
    args = parser.parse_args(argv)
    names = args.names or available()
    unknown = set(names) - set(available())
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    print("environment:", environment())
    for name in names:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        rows = module.run(quick=args.quick)
        print_table(name, rows)
        print("wrote", write_csv(name, rows, args.out))


if __name__ == "__main__":
    main()
