"""A reader of MATPOWER case files (``.m``, version 2), numpy only.

The format is MATPOWER's ``caseformat`` (Zimmerman & Murillo-Sánchez, *MATPOWER User's Manual*,
version 7.1, Appendix B, Tables B-1 to B-4): a function ``mpc = name`` assigning
``mpc.version``, ``mpc.baseMVA`` and the matrices ``mpc.bus`` (13 columns), ``mpc.gen`` (≥ 10),
``mpc.branch`` (≥ 13) and ``mpc.gencost``, each written ``mpc.X = [ row; row; ... ];`` with
``%`` comments. Cell arrays (``mpc.bus_name = { ... };``) and other fields are skipped; a
matrix whose rows differ in length is an error (a truncated or edited file).

Only what the case files themselves say is returned: no renumbering, no unit conversion, no
defaults. Column indices (0-based) of the fields the studies read are given below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# bus (Table B-1)
BUS_I, BUS_TYPE, PD, QD, GS, BS, BUS_AREA, VM, VA, BASE_KV, ZONE, VMAX, VMIN = range(13)
# gen (Table B-2)
GEN_BUS, PG, QG, QMAX, QMIN, VG, MBASE, GEN_STATUS, PMAX, PMIN = range(10)
# branch (Table B-3)
F_BUS, T_BUS, BR_R, BR_X, BR_B, RATE_A, RATE_B, RATE_C, TAP, SHIFT, BR_STATUS, ANGMIN, ANGMAX = range(13)
# gencost (Table B-4): MODEL (1 piecewise linear, 2 polynomial), STARTUP, SHUTDOWN, NCOST, COST...
MODEL, STARTUP, SHUTDOWN, NCOST, COST = range(5)



class MatpowerFormatError(ValueError):
    """The text is not a readable MATPOWER version-2 case."""


@dataclass(frozen=True)
class MatpowerCase:
    """A MATPOWER case as its file states it (``bus``, ``gen``, ``branch``, ``gencost`` as
    float arrays, one row per record, MATPOWER's columns)."""

    name: str
    base_mva: float
    bus: np.ndarray
    gen: np.ndarray
    branch: np.ndarray
    gencost: np.ndarray | None

    @property
    def bus_ids(self) -> np.ndarray:
        return self.bus[:, BUS_I].astype(int)

    def bus_index(self) -> dict[int, int]:
        """External bus number → row of ``bus``."""
        return {int(b): i for i, b in enumerate(self.bus[:, BUS_I])}


def _strip_comments(text: str) -> str:
    # '%' starts a comment to the end of the line (no strings with '%' in a case's matrices)
    return "\n".join(line.split("%", 1)[0] for line in text.splitlines())


def _tokens(row: str) -> list[str]:
    return row.replace(",", " ").replace("\t", " ").split()


def _matrix(body: str, name: str) -> np.ndarray:
    rows = []
    for chunk in body.replace(";", "\n").splitlines():
        toks = _tokens(chunk)
        if not toks:
            continue
        try:
            rows.append([float(tok) for tok in toks])
        except ValueError:
            raise MatpowerFormatError(f"mpc.{name}: a row is not numeric: {chunk.strip()[:60]!r}") from None
    if not rows:
        return np.zeros((0, 0))
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise MatpowerFormatError(f"mpc.{name}: rows of different lengths {sorted(widths)}")
    return np.asarray(rows, dtype=float)


def _assignments(clean: str) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """``mpc.X = value;`` statements: scalars and quoted strings as text, ``[...]`` as matrices;
    cell arrays ``{...}`` skipped."""
    scalars: dict[str, str] = {}
    mats: dict[str, np.ndarray] = {}
    pos = 0
    while True:
        i = clean.find("mpc.", pos)
        if i < 0:
            return scalars, mats
        eq = clean.find("=", i)
        if eq < 0:
            return scalars, mats
        name = clean[i + 4:eq].strip()
        rest = clean[eq + 1:].lstrip()
        start = len(clean) - len(rest)
        if not name.replace("_", "").isalnum():
            pos = i + 4
            continue
        if rest.startswith("["):
            close = clean.find("]", start)
            if close < 0:
                raise MatpowerFormatError(f"mpc.{name}: the matrix is not closed with ']'")
            mats[name] = _matrix(clean[start + 1:close], name)
            pos = close + 1
        elif rest.startswith("{"):
            close = clean.find("}", start)
            pos = (close + 1) if close >= 0 else len(clean)
        else:
            end = clean.find(";", start)
            end = len(clean) if end < 0 else end
            scalars[name] = clean[start:end].strip()
            pos = end + 1


def parse_matpower(text: str) -> MatpowerCase:
    """Read a MATPOWER version-2 case from its text."""
    name = ""
    for line in text.splitlines():
        body = line.split("%", 1)[0]
        if body.strip().startswith("function") and "=" in body:
            name = body.split("=", 1)[1].strip()
            break
    clean = _strip_comments(text)
    scalars, mats = _assignments(clean)
    if scalars.get("version", "").strip("'\"") != "2":
        raise MatpowerFormatError("only MATPOWER case format version '2' is read (mpc.version = '2')")
    try:
        base = float(scalars["baseMVA"])
    except (KeyError, ValueError):
        raise MatpowerFormatError("mpc.baseMVA is missing or not a number") from None
    for key, width in (("bus", 13), ("gen", 10), ("branch", 13)):
        if key not in mats:
            raise MatpowerFormatError(f"mpc.{key} is missing")
        if mats[key].shape[1] < width:
            raise MatpowerFormatError(f"mpc.{key} has {mats[key].shape[1]} columns, needs at least {width}")
    return MatpowerCase(name=name, base_mva=base, bus=mats["bus"], gen=mats["gen"],
                        branch=mats["branch"], gencost=mats.get("gencost"))


def read_matpower(path: str) -> MatpowerCase:
    """:func:`parse_matpower` of a file."""
    with open(path, encoding="utf-8") as fh:
        return parse_matpower(fh.read())


def polynomial_cost(gencost: np.ndarray, pg_mw: np.ndarray) -> np.ndarray:
    """Cost per generator ($/h) of polynomial ``gencost`` rows (MODEL 2) at outputs ``pg_mw``:
    ``Σ c_k P^k`` with the coefficients highest order first (Table B-4)."""
    out = np.zeros(len(pg_mw))
    for i, (row, p) in enumerate(zip(gencost, pg_mw, strict=True)):
        if int(row[MODEL]) != 2:
            raise MatpowerFormatError("only polynomial gencost (MODEL 2) is evaluated")
        n = int(row[NCOST])
        coef = row[COST:COST + n]
        out[i] = float(np.polyval(coef, p))
    return out
