"""The bundled demo catalogue, and ``toolatlas demo``: the README's first command for an installed package.

The demo catalogue (``configs/demo.toml`` in the source tree, ``toolatlas/catalogues/demo.toml`` in
the package) holds five reference MCP servers — files, a knowledge graph, git, SQLite, time — whose
runtimes install from npm and PyPI on first use and whose states are built-in seeds. Written to a
folder it keeps its atlas beside itself (``.toolatlas/atlas/demo``), not where the package lives.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from toolatlas.scaffold import write_example

__all__ = ["DEMO_TASK", "add_commands"]

DEMO_TASK = "Commit my pending changes with a short message"
"""The task the demo asks guidance for (the git server's staged-changes boundary is on its path)."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser(
        "demo", help="write the demo catalogue here, install its servers, build its atlas, ask it for guidance",
        description="The whole product on five reference servers, no LLM needed: writes demo.toml to the "
        "current folder (kept when it is already there), installs and checks its server runtimes under "
        "./.toolatlas, builds the atlas offline and prints the guidance for one task.",
    )
    demo.add_argument("-o", "--output", type=Path, default=Path("demo.toml"), help="where to write the catalogue")
    demo.add_argument("--task", default=DEMO_TASK, help=f"the task to ask guidance for (default: {DEMO_TASK!r})")
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from toolatlas.cli import main

    if write_example(args.output):
        print(f"wrote the demo catalogue to {args.output}", file=sys.stderr, flush=True)
    config = str(args.output)
    logging = [*(["--log-level", args.log_level] if args.log_level else []), *(["--log-json"] if args.log_json else [])]
    # Ray is an extra: without it the build runs in this process (the same atlas, one machine).
    engine = [] if importlib.util.find_spec("ray") else ["--engine", "asyncio"]
    steps = (["servers", "install", config], ["servers", "check", config], ["build", config, *engine],
             ["guide", args.task, "--config", config])
    for step in steps:
        status = main([*logging, *step])
        if status:
            return status
    return 0
