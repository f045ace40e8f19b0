"""Write docs/families.md from the family registry (psab.catalogue).

    python scripts/gen_families_md.py           # rewrite docs/families.md
    python scripts/gen_families_md.py --check   # exit 1 when docs/families.md is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from psab.catalogue import CATALOGUE_PATH, markdown

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when the file differs")
    args = parser.parse_args(argv)
    path = ROOT / CATALOGUE_PATH
    text = markdown()
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if args.check:
        if current != text:
            print(f"{path} is out of date: run python scripts/gen_families_md.py", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
