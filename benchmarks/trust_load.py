"""Loading a signed export against an unsigned one, in the same run: what the signature costs.

An export of N entries (default 100,000: a real atlas's entries copied under new ids, so the
integrity check has real evidence to read) is written twice, unsigned and signed with a fresh
Ed25519 key; `Atlas.from_export` loads each, interleaved, ``--repeat`` times. Goal (issue 17):
signed ≤ 1.2× unsigned. Also printed: the integrity check's own share of the unsigned load.

    nice -n 10 .venv/bin/python benchmarks/trust_load.py [--export F] [--entries 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import interleaved, save, timed  # noqa: E402

from toolatlas.export import AtlasExport  # noqa: E402
from toolatlas.guidance import Atlas  # noqa: E402
from toolatlas.trust import admit, generate_keys, sign_document  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def grown(document: dict, entries: int) -> dict:
    """``document`` with its entries copied (new ids and signatures) until it holds ``entries``."""
    tools = [tool for server in document["servers"] for tool in server["tools"]]
    originals = [(tool, kind, entry) for tool in tools for kind in ("affordances", "boundaries", "co_usage")
                 for entry in tool[kind]]
    if not originals:
        raise SystemExit("the export has no entries to copy")
    copy = 0
    while sum(len(t[k]) for t in tools for k in ("affordances", "boundaries", "co_usage")) < entries:
        tool, kind, entry = originals[copy % len(originals)]
        tool[kind].append(entry | {"id": f"{copy:024x}", "signature": f"{entry['signature']}#{copy}"})
        copy += 1
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--export", type=Path, default=REPO / ".toolatlas" / "atlas" / "demo" / "atlas.json",
                        help="the export whose entries are copied (default: the demo atlas; `make demo` builds it)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.export.is_file():
        raise SystemExit(f"{args.export}: no such export (run `make demo`, or give --export)")
    document = grown(json.loads(args.export.read_text()), args.entries)
    document.pop("signature", None)
    with tempfile.TemporaryDirectory(prefix="toolatlas-trust-") as scratch:
        folder = Path(scratch)
        private, public = generate_keys(folder / "key")
        unsigned, signed = folder / "unsigned.json", folder / "signed.json"
        unsigned.write_text(json.dumps(document))
        signed.write_text(json.dumps(sign_document(document, private)))
        size = signed.stat().st_size
        mine, base = interleaved(lambda: Atlas.from_export(signed, trusted=[public]),
                                 lambda: Atlas.from_export(unsigned), args.repeat)
        parsed = AtlasExport.model_validate(document)
        check = statistics.median(timed(lambda: admit(parsed)) for _ in range(args.repeat))
    ratio = statistics.median(mine) / statistics.median(base)
    print(f"{args.entries} entries, {size / 2**20:.1f} MiB: unsigned load {statistics.median(base):.2f} s, "
          f"signed (verified) {statistics.median(mine):.2f} s -> {ratio:.3f}x (goal <= 1.2x); "
          f"integrity check {check:.2f} s ({check / statistics.median(base):.0%} of the unsigned load)")
    save("trust_load", {"entries": args.entries, "bytes": size, "unsigned_s": base, "signed_s": mine,
                        "ratio": ratio, "integrity_s": check})


if __name__ == "__main__":
    main()
