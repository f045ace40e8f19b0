"""A small document model rendered to Markdown and to a self-contained HTML page.

The report is built once as a list of blocks; :func:`markdown` and :func:`html` render the same
blocks, so the two files say the same thing. Inline text is a list of spans — plain, code,
bold, or a tone (a coloured badge in HTML, plain text in Markdown) — and every renderer escapes
what it must, so violation texts written by an evaluator (``/schedule/*/p_mw``, ``<``, ``|``)
show as written.
"""

from __future__ import annotations

import base64
import html as _html
import re
from dataclasses import dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------- inline spans


@dataclass(frozen=True)
class Span:
    text: str
    kind: str = "text"  # text | code | bold | tone
    tone: str = ""      # good | warn | bad | muted (kind == "tone", or a cell's tone)


def t(text: str) -> Span:
    return Span(text)


def c(text: str) -> Span:
    return Span(text, "code")


def b(text: str) -> Span:
    return Span(text, "bold")


def tone(text: str, which: str) -> Span:
    return Span(text, "tone", which)


Inline = list[Span]


def _as_inline(x: str | Span | Inline) -> Inline:
    if isinstance(x, str):
        return [t(x)]
    if isinstance(x, Span):
        return [x]
    return list(x)


# --------------------------------------------------------------------------- blocks


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    spans: Inline
    note: bool = False  # a note: smaller and muted in HTML, italic-free in Markdown


@dataclass
class Cell:
    spans: Inline
    tone: str = ""        # background: good | warn | bad | muted | "" (HTML only)
    heat: float | None = None  # 0..1: background shade for a score (HTML only)


@dataclass
class Table:
    header: list[str]
    rows: list[list[Cell]]
    align: list[str]  # "l" or "r" per column
    caption: str = ""
    group_rows: set[int] = field(default_factory=set)  # rows shown as a group heading


@dataclass
class Image:
    path: Path      # the PNG file (written next to the report)
    alt: str
    caption: str = ""


@dataclass
class Items:
    """A list; each item is inline text with optional sub-items (also inline)."""

    items: list[tuple[Inline, list[Inline]]]


Block = Heading | Para | Table | Image | Items


def cell(x: str | Span | Inline, *, tone: str = "", heat: float | None = None) -> Cell:
    return Cell(_as_inline(x), tone, heat)


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "section"


# --------------------------------------------------------------------------- Markdown

# Only what Markdown would otherwise read as markup: backslashes, backticks, asterisks, an
# underscore at a word boundary (GFM ignores intraword ones), "<" (HTML), "](" (a link), a "#"
# or ">" starting a line, and "|" inside a table cell.
_MD_ALWAYS = re.compile(r"([\\`*<])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _md_text(s: str, in_table: bool = False) -> str:
    out = _MD_ALWAYS.sub(lambda m: "\\" + m.group(0), s)
    out = out.replace("](", "\\](")
    if in_table:
        out = out.replace("|", "\\|")
    return re.sub(r"^(\s*)([#>])", r"\1\\\2", out, flags=re.M)


def _md_code(s: str) -> str:
    s = s.replace("\n", " ")
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _md_inline(spans: Inline, in_table: bool = False) -> str:
    out = []
    for sp in spans:
        if sp.kind == "code":
            txt = _md_code(sp.text)
            out.append(txt.replace("|", "\\|") if in_table else txt)
        elif sp.kind in ("bold", "tone"):
            out.append(f"**{_md_text(sp.text, in_table)}**")
        else:
            out.append(_md_text(sp.text, in_table).replace("\n", " ") if in_table else _md_text(sp.text))
    return "".join(out)


def markdown(blocks: list[Block], image_base: Path) -> str:
    """The blocks as GitHub-flavoured Markdown; images are linked relative to ``image_base``."""
    lines: list[str] = []
    for blk in blocks:
        if isinstance(blk, Heading):
            lines += ["#" * blk.level + " " + _md_text(blk.text), ""]
        elif isinstance(blk, Para):
            text = _md_inline(blk.spans)
            lines += [("> " + text) if blk.note else text, ""]
        elif isinstance(blk, Table):
            if blk.caption:
                lines += [f"*{_md_text(blk.caption)}*", ""]
            lines.append("| " + " | ".join(_md_text(h, True) for h in blk.header) + " |")
            lines.append("|" + "|".join("---:" if a == "r" else "---" for a in blk.align) + "|")
            for i, row in enumerate(blk.rows):
                cells = [_md_inline(cl.spans, in_table=True) for cl in row]
                if i in blk.group_rows:
                    cells = [f"**{x}**" if x else x for x in cells]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        elif isinstance(blk, Image):
            try:
                rel = blk.path.relative_to(image_base)
            except ValueError:
                rel = blk.path
            lines += [f"![{_md_text(blk.alt)}]({rel.as_posix()})", ""]
            if blk.caption:
                lines += [f"*{_md_text(blk.caption)}*", ""]
        elif isinstance(blk, Items):
            for item, subs in blk.items:
                lines.append("- " + _md_inline(item))
                for s in subs:
                    lines.append("  - " + _md_inline(s))
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- HTML

_CSS = """
:root { --fg:#1d2330; --muted:#5b6577; --line:#d8dde6; --zebra:#f6f8fb; --accent:#1f5fa8;
        --good:#e3f4e6; --goodfg:#1d6b31; --warn:#fdf1d8; --warnfg:#8a5a00; --bad:#fbe3e1; --badfg:#a12a1f; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); margin: 0; background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 64px; }
h1 { font-size: 1.75rem; margin: 0 0 .4rem; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 .6rem; padding-bottom: .25rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.08rem; margin: 1.5rem 0 .4rem; }
h4 { font-size: 1rem; margin: 1.1rem 0 .3rem; color: var(--muted); }
p { margin: .45rem 0 .8rem; }
p.note { color: var(--muted); font-size: .9rem; border-left: 3px solid var(--line); padding-left: .7rem; }
code { font: .86em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
       background: #eef1f6; padding: .05em .3em; border-radius: 3px; }
.tablewrap { overflow-x: auto; margin: .4rem 0 1.1rem; }
table { border-collapse: collapse; font-size: .9rem; }
caption { caption-side: top; text-align: left; color: var(--muted); font-size: .88rem; padding: 0 0 .35rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .55rem; vertical-align: top; }
th { background: #eef2f8; text-align: left; font-weight: 600; vertical-align: bottom; }
th.r { white-space: normal; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td.r { white-space: nowrap; }
tbody tr:nth-child(even) td { background: var(--zebra); }
tr.group td { background: #e8edf5 !important; font-weight: 600; }
td.good { background: var(--good) !important; color: var(--goodfg); }
td.warn { background: var(--warn) !important; color: var(--warnfg); }
td.bad { background: var(--bad) !important; color: var(--badfg); }
td.muted { color: var(--muted); }
.tone { display: inline-block; padding: 0 .45em; border-radius: 9px; font-size: .82em; font-weight: 600; }
.tone.good { background: var(--good); color: var(--goodfg); }
.tone.warn { background: var(--warn); color: var(--warnfg); }
.tone.bad { background: var(--bad); color: var(--badfg); }
.tone.muted { background: #eceff4; color: var(--muted); }
figure { margin: 1rem 0 1.6rem; }
figure img { width: 100%; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: .88rem; margin-top: .3rem; }
ul { margin: .3rem 0 .9rem; padding-left: 1.3rem; }
li { margin: .2rem 0; }
li ul { margin: .15rem 0 .35rem; }
li li { font-size: .9rem; color: #333a48; }
nav.toc { background: var(--zebra); border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem;
          margin: 1rem 0 1.4rem; font-size: .92rem; }
nav.toc a { color: var(--accent); text-decoration: none; margin-right: 1.1rem; white-space: nowrap; }
"""


def _h(s: str) -> str:
    return _html.escape(s, quote=True)


def _html_inline(spans: Inline) -> str:
    out = []
    for sp in spans:
        if sp.kind == "code":
            out.append(f"<code>{_h(sp.text)}</code>")
        elif sp.kind == "bold":
            out.append(f"<strong>{_h(sp.text)}</strong>")
        elif sp.kind == "tone":
            out.append(f'<span class="tone {_h(sp.tone)}">{_h(sp.text)}</span>')
        else:
            out.append(_h(sp.text))
    return "".join(out)


def _heat(score: float) -> str:
    """A background from red (0) through amber to green (1), light enough for dark text."""
    s = min(1.0, max(0.0, score))
    if s >= 1.0:
        return "#d8f0dc"
    # hue 0 (red) .. 45 (amber) .. 110 (green-yellow) for partial scores
    hue = 4 + 100 * s
    return f"hsl({hue:.0f}, 75%, 88%)"


def html(blocks: list[Block], title: str, embed: bool = True) -> str:
    """A self-contained HTML page (no JavaScript); PNGs are embedded as data URIs."""
    toc = [(blk.text, blk.anchor or slug(blk.text)) for blk in blocks if isinstance(blk, Heading) and blk.level == 2]
    parts = ['<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{_h(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>", "<main>"]
    first_h2 = True
    for blk in blocks:
        if isinstance(blk, Heading):
            if blk.level == 2 and first_h2 and toc:
                parts.append('<nav class="toc">' + "".join(f'<a href="#{_h(a)}">{_h(txt)}</a>' for txt, a in toc) + "</nav>")
                first_h2 = False
            anchor = blk.anchor or slug(blk.text)
            parts.append(f'<h{blk.level} id="{_h(anchor)}">{_h(blk.text)}</h{blk.level}>')
        elif isinstance(blk, Para):
            cls = ' class="note"' if blk.note else ""
            parts.append(f"<p{cls}>{_html_inline(blk.spans)}</p>")
        elif isinstance(blk, Table):
            rows = ['<div class="tablewrap"><table>']
            if blk.caption:
                rows.append(f"<caption>{_h(blk.caption)}</caption>")
            rows.append("<thead><tr>" + "".join(
                f'<th class="{a}">{_h(hd)}</th>' for hd, a in zip(blk.header, blk.align, strict=True)) + "</tr></thead><tbody>")
            for i, row in enumerate(blk.rows):
                tr = ' class="group"' if i in blk.group_rows else ""
                tds = []
                for cl, a in zip(row, blk.align, strict=True):
                    classes = [a] + ([cl.tone] if cl.tone else [])
                    style = f' style="background:{_heat(cl.heat)}"' if cl.heat is not None and not cl.tone else ""
                    tds.append(f'<td class="{" ".join(classes)}"{style}>{_html_inline(cl.spans)}</td>')
                rows.append(f"<tr{tr}>" + "".join(tds) + "</tr>")
            rows.append("</tbody></table></div>")
            parts.append("".join(rows))
        elif isinstance(blk, Image):
            if embed and blk.path.is_file():
                src = "data:image/png;base64," + base64.b64encode(blk.path.read_bytes()).decode("ascii")
            else:
                src = blk.path.name
            cap = f"<figcaption>{_h(blk.caption)}</figcaption>" if blk.caption else ""
            parts.append(f'<figure><img src="{src}" alt="{_h(blk.alt)}">{cap}</figure>')
        elif isinstance(blk, Items):
            lis = []
            for item, subs in blk.items:
                sub = ("<ul>" + "".join(f"<li>{_html_inline(s)}</li>" for s in subs) + "</ul>") if subs else ""
                lis.append(f"<li>{_html_inline(item)}{sub}</li>")
            parts.append("<ul>" + "".join(lis) + "</ul>")
    parts += ["</main>", "</body>", "</html>", ""]
    return "\n".join(parts)
