"""Write docs/user_guide/capabilities.csv: every registered model's cell of every
feature on every path, as the library decides it (fastnb._capabilities.decision)
and tests/test_common_checks*.py checks it.

    python -P tools/render_capabilities.py          # rewrite the table
    python -P tools/render_capabilities.py --check  # exit 1 if it is stale

tests/test_capabilities_table.py runs the check, so the table cannot drift from
the decisions.
"""

import argparse
import csv
import io
import pathlib
import sys

TABLE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "user_guide" / \
    "capabilities.csv"


def render():
    """The table's text: one row a (model, feature), one column a path; a cell
    is "yes" or "refused: why"."""
    import fastnb  # noqa: F401  (registers every model)
    from fastnb._capabilities import FEATURES, PATHS, decision, registered_models

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "feature"] + list(PATHS))
    for name in sorted(registered_models()):
        cls = registered_models()[name]
        for feature in FEATURES:
            cells = []
            for path in PATHS:
                cell = decision(cls, feature, path)
                if cell.supported:
                    cells.append(f"yes, {cell.why}" if cell.why else "yes")
                else:
                    cells.append(f"refused: {cell.why}")
            writer.writerow([name, feature.replace("_", " ")] + cells)
    return out.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the table differs from the decisions")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = TABLE.read_text() if TABLE.exists() else ""
        if current != text:
            print(f"{TABLE} is stale: run python -P tools/render_capabilities.py")
            return 1
        return 0
    TABLE.write_text(text)
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
