"""Office Open XML packages (``.xlsx``, ``.docx``) written byte for byte the same on every run.

An OOXML file is a zip of XML parts. Office libraries stamp the current time into every zip
member and into ``docProps/core.xml``; here every member carries :data:`FIXED_EPOCH`'s date, the
same permissions and no compression-level surprises (``ZIP_DEFLATED`` at level 9), so a seed's
spreadsheet or document hashes the same everywhere. Only the parts the readers need are written
(openpyxl and python-docx load them), with inline strings instead of a shared-string table.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Sequence
from xml.sax.saxutils import escape

from toolatlas.environments.seeds._registry import FIXED_EPOCH

__all__ = ["docx_package", "xlsx_package"]

_ZIP_TIME = time.gmtime(FIXED_EPOCH)[:6]
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_CT = "http://schemas.openxmlformats.org/package/2006/content-types"
_SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_WORD_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

Cell = str | int | float | None


def _zip(parts: list[tuple[str, str]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in parts:
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (_XML + text).encode("utf-8"), compresslevel=9)
    return buffer.getvalue()


def _column(index: int) -> str:
    """Spreadsheet column letters of a 0-based index (0 → A, 26 → AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _cell(ref: str, value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(str(value))}</t></is></c>'
    return f'<c r="{ref}"><v>{value!r}</v></c>'


def _sheet_xml(rows: Sequence[Sequence[Cell]]) -> str:
    body = "".join(
        f'<row r="{r}">' + "".join(_cell(f"{_column(c)}{r}", v) for c, v in enumerate(row)) + "</row>"
        for r, row in enumerate(rows, start=1)
    )
    return f'<worksheet xmlns="{_SHEET_NS}"><sheetData>{body}</sheetData></worksheet>'


def xlsx_package(sheets: Sequence[tuple[str, Sequence[Sequence[Cell]]]]) -> bytes:
    """An ``.xlsx`` workbook with the given (sheet name, rows) in order; strings inline, numbers as values."""
    overrides = "".join(
        f'<Override PartName="/xl/worksheets/sheet{i}.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        for i in range(1, len(sheets) + 1)
    )
    content_types = (
        f'<Types xmlns="{_CT}">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/styles.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        f"{overrides}</Types>"
    )
    root_rels = (
        f'<Relationships xmlns="{_PKG_REL}"><Relationship Id="rId1" '
        f'Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    sheet_list = "".join(
        f'<sheet name="{escape(name)}" sheetId="{i}" r:id="rId{i}"/>'
        for i, (name, _rows) in enumerate(sheets, 1)
    )
    workbook = f'<workbook xmlns="{_SHEET_NS}" xmlns:r="{_REL}"><sheets>{sheet_list}</sheets></workbook>'
    workbook_rels = (
        f'<Relationships xmlns="{_PKG_REL}">'
        + "".join(
            f'<Relationship Id="rId{i}" Type="{_REL}/worksheet" Target="worksheets/sheet{i}.xml"/>'
            for i in range(1, len(sheets) + 1)
        )
        + f'<Relationship Id="rId{len(sheets) + 1}" Type="{_REL}/styles" Target="styles.xml"/>'
        + "</Relationships>"
    )
    styles = (
        f'<styleSheet xmlns="{_SHEET_NS}">'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>'
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
        "</styleSheet>"
    )
    parts = [
        ("[Content_Types].xml", content_types),
        ("_rels/.rels", root_rels),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", workbook_rels),
        ("xl/styles.xml", styles),
    ]
    parts += [(f"xl/worksheets/sheet{i}.xml", _sheet_xml(rows)) for i, (_name, rows) in enumerate(sheets, 1)]
    return _zip(parts)


# Built-in style names are stored lower-case where Word does ("heading 1"); readers map them to
# "Heading 1". A document is a list of blocks: ("Title"|"Heading1"|"Heading2"|"Normal"|"ListBullet", text) or
# ("table", rows of cell texts).
Block = tuple[str, str] | tuple[str, Sequence[Sequence[str]]]

_BOLD = '<w:rPr><w:b/><w:sz w:val="{size}"/></w:rPr>'
_OUTLINE = '<w:pPr><w:outlineLvl w:val="{level}"/></w:pPr>'
_STYLES = (
    ("Normal", "Normal", "paragraph", ""),
    ("Title", "Title", "paragraph", _BOLD.format(size=48)),
    ("Heading1", "heading 1", "paragraph", _OUTLINE.format(level=0) + _BOLD.format(size=32)),
    ("Heading2", "heading 2", "paragraph", _OUTLINE.format(level=1) + _BOLD.format(size=26)),
    ("ListBullet", "List Bullet", "paragraph", ""),
    ("TableGrid", "Table Grid", "table", ""),
)


def _style(style_id: str, name: str, kind: str, extra: str) -> str:
    default = ' w:default="1"' if style_id == "Normal" else ""
    head = f'<w:style w:type="{kind}" w:styleId="{style_id}"{default}>'
    return f'{head}<w:name w:val="{name}"/>{extra}</w:style>'


def _paragraph(style: str, text: str) -> str:
    return (
        f'<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr>'
        f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'
    )


def _table_cell(text: str) -> str:
    return f"<w:tc><w:p><w:r><w:t>{escape(text)}</w:t></w:r></w:p></w:tc>"


def _table(rows: Sequence[Sequence[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(_table_cell(c) for c in row) + "</w:tr>" for row in rows)
    grid = "".join('<w:gridCol w:w="2400"/>' for _ in rows[0])
    props = '<w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>'
    return f"<w:tbl>{props}<w:tblGrid>{grid}</w:tblGrid>{cells}</w:tbl>"


def docx_package(blocks: Sequence[Block], *, title: str, author: str) -> bytes:
    """A ``.docx`` of styled paragraphs and tables, with its title and author in the core properties."""
    body = "".join(
        _table(content) if kind == "table" else _paragraph(kind, content)  # type: ignore[arg-type]
        for kind, content in blocks
    )
    document = f'<w:document xmlns:w="{_WORD_NS}"><w:body>{body}<w:sectPr/></w:body></w:document>'
    styles = f'<w:styles xmlns:w="{_WORD_NS}">' + "".join(_style(*style) for style in _STYLES) + "</w:styles>"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(FIXED_EPOCH))
    core = (
        "<cp:coreProperties "
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<dc:title>{escape(title)}</dc:title><dc:creator>{escape(author)}</dc:creator>"
        f'<dcterms:created xsi:type="dcterms:W3CDTF">{stamp}</dcterms:created>'
        f'<dcterms:modified xsi:type="dcterms:W3CDTF">{stamp}</dcterms:modified></cp:coreProperties>'
    )
    content_types = (
        f'<Types xmlns="{_CT}">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
        '<Override PartName="/docProps/core.xml" '
        'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
        "</Types>"
    )
    root_rels = (
        f'<Relationships xmlns="{_PKG_REL}">'
        f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/>'
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/'
        'core-properties" Target="docProps/core.xml"/></Relationships>'
    )
    document_rels = (
        f'<Relationships xmlns="{_PKG_REL}">'
        f'<Relationship Id="rId1" Type="{_REL}/styles" Target="styles.xml"/></Relationships>'
    )
    return _zip(
        [
            ("[Content_Types].xml", content_types),
            ("_rels/.rels", root_rels),
            ("docProps/core.xml", core),
            ("word/document.xml", document),
            ("word/_rels/document.xml.rels", document_rels),
            ("word/styles.xml", styles),
        ]
    )
