"""The docs' capability table is the library's decisions, rendered."""

import pathlib
import runpy

TOOL = pathlib.Path(__file__).resolve().parent.parent / "tools" / "render_capabilities.py"


def test_the_docs_table_is_the_decisions():
    tool = runpy.run_path(str(TOOL))
    assert tool["TABLE"].read_text() == tool["render"](), (
        "docs/user_guide/capabilities.csv is stale: run "
        "python -P tools/render_capabilities.py")
