"""The search index of a stored world: an inverted index over document paths, headers and text,
built once per world and cached in the world directory (``index/``), ranked with BM25.

PowerBench Table 3's ``search_corpus`` searches "paths, text, and headers"; issue 23 asks for a
real index (not a scan per call). Three fields are indexed per document — its path, its headers
(Markdown ``#`` lines, JSON keys) and its whole text — and a term's weight in a document is
``2·tf(path) + 2·tf(header) + tf(text)``. Scores are Okapi BM25 (Robertson & Zaragoza 2009,
eq. 3.15: k1 = 1.2, b = 0.75) over that weighted frequency; the IDF uses the whole world, so a
document's score does not depend on which other devices a corpus-size run hides.

A query is plain text: it is tokenised with the same rule as the documents and never reaches
SQL or a regular expression engine, so neither can be injected. Tokens are runs of letters and
digits; a compound identifier (``WO-10503010``, ``TRANSF-ONAN-110_10-normal.K5``) is indexed
both whole and by its parts, so ``WO-10503010`` finds that work order exactly while ``ONAN``
finds every ONAN type.

Storage: ``index/meta.json`` (format, the manifest's sha256, the document paths, the vocabulary)
and ``index/{offsets,doc_ids,weights,doc_len}.npy`` (term offsets into the postings, document
ids, weighted frequencies, document lengths; the same bytes for the same world); written to a
temporary directory and renamed, so concurrent builders never leave a torn index. An index whose
manifest digest differs from the world's is rebuilt. A world directory that cannot be written
gets an in-memory index (cached per process all the same).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 2
ARRAYS = ("offsets", "doc_ids", "weights", "doc_len")
INDEX_DIR = "index"
#: BM25 constants (Robertson & Zaragoza 2009, §3.4: k1 ∈ [1.2, 2.0], b = 0.75).
K1 = 1.2
B = 0.75
#: Field weights: a hit in the path or a header says more about a document than one in its body.
W_PATH = 2.0
W_HEADER = 2.0

_PART = re.compile(r"[0-9A-Za-z\u00C0-\u024F\u0400-\u04FF]+")
_COMPOUND = re.compile(r"[0-9A-Za-z\u00C0-\u024F\u0400-\u04FF]+(?:[-_.:][0-9A-Za-z\u00C0-\u024F\u0400-\u04FF]+)+")
_MD_HEADER = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$", re.M)
_JSON_KEY = re.compile(r'"([^"\\]{1,80})"\s*:')


def tokens(text: str) -> list[str]:
    """Lower-cased terms: every alphanumeric run, plus every compound identifier whole."""
    out = [m.group(0).lower() for m in _PART.finditer(text)]
    out += [m.group(0).lower() for m in _COMPOUND.finditer(text)]
    return out


def headers(path: str, text: str) -> str:
    if path.endswith(".md"):
        return "\n".join(_MD_HEADER.findall(text))
    if path.endswith(".json"):
        return " ".join(_JSON_KEY.findall(text))
    return ""


@dataclass
class Index:
    paths: list[str]
    vocab: dict[str, int]
    offsets: np.ndarray  # int64, len(vocab) + 1: postings of term t are [offsets[t], offsets[t+1])
    doc_ids: np.ndarray  # int32
    weights: np.ndarray  # float32, the weighted term frequency
    doc_len: np.ndarray  # float32, weighted length of each document
    digest: str

    @property
    def n_docs(self) -> int:
        return len(self.paths)

    def search(self, query: str, visible: np.ndarray | None = None, limit: int = 10) -> list[tuple[int, float]]:
        """(document number, score) of the best ``limit`` documents for ``query``, best first
        (ties by path order); ``visible`` is a boolean mask of documents that may be returned."""
        terms = [self.vocab[t] for t in dict.fromkeys(tokens(query)) if t in self.vocab]
        if not terms or self.n_docs == 0:
            return []
        scores = np.zeros(self.n_docs, dtype=np.float64)
        avg = float(self.doc_len.mean()) or 1.0
        norm = K1 * (1.0 - B + B * self.doc_len / avg)
        for t in terms:
            a, b = int(self.offsets[t]), int(self.offsets[t + 1])
            ids = self.doc_ids[a:b]
            tf = self.weights[a:b].astype(np.float64)
            df = b - a
            idf = np.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5))
            scores[ids] += idf * tf * (K1 + 1.0) / (tf + norm[ids])
        if visible is not None:
            scores[~visible] = 0.0
        hit = np.flatnonzero(scores > 0.0)
        if hit.size == 0:
            return []
        # best first, ties by document order (paths are sorted): a stable, deterministic ranking
        order = hit[np.lexsort((hit, -scores[hit]))][:limit]
        return [(int(i), float(scores[i])) for i in order]


#: The largest document any tool reads (the world's are a few kilobytes).
MAX_DOCUMENT_BYTES = 32 * 2**20


def read_document(world_root: Path, rel: str) -> str:
    """A document's text, read only if ``rel`` names a regular file reached through no symlink
    (no component of the path, the last included) inside the world's ``documents/``; else
    ``OSError``. Everything that shows a document's content — ``read_file``, the snippets and
    this index — reads through here, so a link planted in a world leads nowhere."""
    root = Path(world_root).resolve()
    full = root / rel
    if os.path.realpath(full) != str(full) or (root / "documents") not in full.parents:
        raise OSError(f"{rel}: not a regular document")
    fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{rel}: not a regular document")
        if st.st_size > MAX_DOCUMENT_BYTES:
            raise OSError(f"{rel}: document too large to read")
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(MAX_DOCUMENT_BYTES + 1).decode("utf-8", errors="replace")
    finally:
        os.close(fd)


def manifest_digest(world_root: Path) -> str:
    return hashlib.sha256((Path(world_root) / "documents" / "manifest.jsonl").read_bytes()).hexdigest()


def build(world_root: Path) -> Index:
    """Tokenise every document of the manifest (in path order) into an inverted index."""
    from psab.fleet import store

    root = Path(world_root)
    digest = manifest_digest(root)
    paths = sorted(m["path"] for m in store.read_manifest(root))
    postings: dict[str, dict[int, float]] = {}
    lengths = np.zeros(len(paths), dtype=np.float32)
    for i, p in enumerate(paths):
        try:
            text = read_document(root, p)
        except OSError:
            text = ""  # not a regular document: only its path is indexed, nothing it points to
        tf: dict[str, float] = {}
        for field, w in ((p, W_PATH), (headers(p, text), W_HEADER), (text, 1.0)):
            for t in tokens(field):
                tf[t] = tf.get(t, 0.0) + w
        lengths[i] = sum(tf.values())
        for t, f in tf.items():
            postings.setdefault(t, {})[i] = f
    terms = sorted(postings)
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    ids, ws = [], []
    for k, t in enumerate(terms):
        row = postings[t]
        offsets[k + 1] = offsets[k] + len(row)
        ids.extend(row.keys())
        ws.extend(row.values())
    return Index(paths, {t: k for k, t in enumerate(terms)}, offsets, np.asarray(ids, dtype=np.int32),
                 np.asarray(ws, dtype=np.float32), lengths, digest)


def save(index: Index, world_root: Path) -> Path:
    root = Path(world_root)
    tmp = Path(tempfile.mkdtemp(prefix=".index-", dir=root))
    try:
        terms = [""] * len(index.vocab)
        for t, k in index.vocab.items():
            terms[k] = t
        (tmp / "meta.json").write_text(json.dumps({"format": FORMAT, "manifest_sha256": index.digest, "paths": index.paths,
                                                   "terms": terms}, ensure_ascii=False), encoding="utf-8")
        # plain .npy files, not an .npz: a zip member records the time it was written, and the
        # world (index included, once world-build calls ensure_index) is byte-identical per seed
        for name in ARRAYS:
            np.save(tmp / f"{name}.npy", getattr(index, name), allow_pickle=False)
        os.chmod(tmp, 0o755)
        dest = root / INDEX_DIR
        old = None
        if dest.exists():
            old = root / f".index-old-{os.getpid()}-{threading.get_ident()}"
            os.replace(dest, old)
        os.replace(tmp, dest)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return dest
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def load(world_root: Path) -> Index | None:
    """The cached index, or ``None`` when there is none, it is unreadable or it is stale."""
    d = Path(world_root) / INDEX_DIR
    try:
        meta: dict[str, Any] = json.loads((d / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("manifest_sha256") != manifest_digest(world_root):
            return None
        arrays = {k: np.load(d / f"{k}.npy", allow_pickle=False) for k in ARRAYS}
    except (OSError, ValueError, KeyError):
        return None
    terms = meta["terms"]
    return Index(list(meta["paths"]), {t: k for k, t in enumerate(terms)}, arrays["offsets"], arrays["doc_ids"],
                 arrays["weights"], arrays["doc_len"], meta["manifest_sha256"])


_CACHE: dict[str, tuple[tuple[int, int], Index]] = {}
_LOCK = threading.Lock()


def _signature(world_root: Path) -> tuple[int, int]:
    st = (Path(world_root) / "documents" / "manifest.jsonl").stat()
    return st.st_mtime_ns, st.st_size


def ensure_index(world_root: Path) -> Index:
    """The world's index: from this process's cache, else from ``index/`` in the world, else
    built (and saved there when the directory is writable)."""
    key = str(Path(world_root).resolve())
    sig = _signature(world_root)  # a rewritten manifest (a rebuilt world) invalidates the cache
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] == sig:
            return hit[1]
        idx = load(world_root)
        if idx is None:
            idx = build(world_root)
            try:
                save(idx, world_root)
            except OSError:
                pass  # a read-only world: the index lives in this process only
        _CACHE[key] = (sig, idx)
        return idx
