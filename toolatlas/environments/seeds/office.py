"""``wild.spreadsheets`` and ``wild.documents``: office files for spreadsheet and word-processor servers.

``wild.spreadsheets`` is a folder with a two-sheet workbook (``sales.xlsx``: *Sales* and
*Targets*), a CSV price list and a note that is not a spreadsheet; ``wild.documents`` a folder
with two Word documents (a report with headings, bullets and a table, and a short letter) and a
plain-text file. Both are written by :mod:`~toolatlas.environments.seeds.ooxml`, byte for byte
the same on every run.
"""

from __future__ import annotations

from pathlib import Path

from toolatlas.environments.seeds._registry import pin_times, seed, write_bytes, write_text
from toolatlas.environments.seeds.ooxml import docx_package, xlsx_package

__all__ = ["SALES", "TARGETS", "build_documents", "build_spreadsheets"]

# Region, Month, Units, Revenue
SALES: list[tuple[str, str, int, float]] = [
    ("North", "2024-01", 120, 2400.0),
    ("South", "2024-01", 95, 1900.0),
    ("East", "2024-01", 143, 2860.0),
    ("West", "2024-01", 77, 1540.0),
    ("North", "2024-02", 132, 2640.0),
    ("South", "2024-02", 88, 1760.0),
    ("East", "2024-02", 150, 3000.0),
    ("West", "2024-02", 91, 1820.0),
]
TARGETS: list[tuple[str, int]] = [("North", 250), ("South", 200), ("East", 280), ("West", 180)]
PRICES = """sku,name,category,price,stock
ELC-001,USB-C Cable,Electronics,9.99,140
ELC-002,Wireless Mouse,Electronics,24.5,35
OFF-001,Notebook,Office,3.2,410
OFF-002,Stapler,Office,7.75,0
KIT-001,Coffee Mug,Kitchen,6.0,88
"""


@seed("wild.spreadsheets", kind="directory")
def build_spreadsheets(dest: Path) -> None:
    """Write the spreadsheet folder at ``dest``."""
    dest.mkdir()
    workbook = xlsx_package(
        [
            ("Sales", [("Region", "Month", "Units", "Revenue"), *SALES]),
            ("Targets", [("Region", "Target"), *TARGETS]),
        ]
    )
    write_bytes(dest / "sales.xlsx", workbook)
    write_text(dest / "prices.csv", PRICES)
    write_text(dest / "README.txt", "Quarterly sales workbook and the current price list.\n")
    pin_times(dest)


REPORT = [
    ("Title", "Quarterly Operations Report"),
    ("Heading1", "Summary"),
    ("Normal", "Revenue grew in every region during the first quarter."),
    ("Normal", "The East region delivered the highest unit sales."),
    ("Heading1", "Regional results"),
    ("ListBullet", "North: 252 units"),
    ("ListBullet", "South: 183 units"),
    ("ListBullet", "East: 293 units"),
    ("table", [["Region", "Units", "Revenue"], ["North", "252", "5040"], ["East", "293", "5860"]]),
    ("Heading2", "Next steps"),
    ("Normal", "Hire two more sales engineers for the West region."),
]
LETTER = [
    ("Normal", "Dear Ms. Okafor,"),
    ("Normal", "Thank you for your order of 12 desk lamps. They will ship on Monday."),
    ("Normal", "Kind regards,"),
    ("Normal", "Northwind Traders"),
]


@seed("wild.documents", kind="directory")
def build_documents(dest: Path) -> None:
    """Write the documents folder at ``dest``."""
    dest.mkdir()
    report = docx_package(REPORT, title="Quarterly Operations Report", author="Ada Lovelace")
    write_bytes(dest / "report.docx", report)
    write_bytes(dest / "letter.docx", docx_package(LETTER, title="Order confirmation", author="Grace Hopper"))
    write_text(dest / "notes.txt", "Draft notes: the report still needs a chart.\n")
    pin_times(dest)
