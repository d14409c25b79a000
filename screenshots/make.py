"""Write the project's screenshots: `python screenshots/make.py [NAME ...]`.

Each picture is the real app on the bundled reference server (`--synthetic 2000
--seed 0`) with the test settings (no timings or machine details), driven into
a state by the same scenario the snapshot tests use (`tests.support.scenarios`), then saved as
`screenshots/<name>.svg`. Run it from a checkout with rea-tui installed
(`pip install -e .`); it takes a few seconds per picture.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))  # the checkout's rea_tui and its test support

from tests.support import scenarios  # noqa: E402
from tests.support.pilot import make_app, snapshot_settings  # noqa: E402

SHOTS: dict[str, scenarios.Scenario] = {
    "prompt_list": scenarios.prompt_list,
    "dropdown_has_more": scenarios.dropdown_has_more,
    "workflow_and_evidence": scenarios.workflow_and_evidence,
    "narrowing_picker": scenarios.narrowing_picker,
    "evidence_listing": scenarios.evidence_listing,
    "evidence_tables": scenarios.evidence_tables,
    "protocol_log": scenarios.protocol_log,
    "completion_inspector": scenarios.completion_inspector,
    "server_details": scenarios.server_details,
    "completion_audit": scenarios.completion_audit,
}


async def shoot(name: str, folder: Path, transcripts: Path) -> Path:
    """Run one scenario and save what the screen shows as `<folder>/<name>.svg`."""
    # A transcript with a fixed name: the evidence pane shows it, and the default one is named by time and pid.
    app = make_app(
        [scenarios.reference_spec(open_first=True)],
        settings=snapshot_settings(),
        transcript=transcripts / "session.jsonl",
    )
    async with app.run_test(size=scenarios.SIZE) as pilot:
        await SHOTS[name](pilot)
        saved = app.save_screenshot(filename=f"{name}.svg", path=str(folder))
        await app.action_quit()
    return Path(saved)


async def main(names: list[str], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="rea-tui-screenshot-") as transcripts:
            path = await shoot(name, folder, Path(transcripts))
        print(f"{path}  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(SHOTS)} (default: all)")
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the SVG files (default: screenshots/)")
    options = parser.parse_args()
    unknown = [n for n in options.names if n not in SHOTS]
    if unknown:
        parser.error(f"no screenshot named {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    asyncio.run(main(options.names or list(SHOTS), options.out))
