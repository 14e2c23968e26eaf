"""The message catalogs: extracting the texts, updating the .po files, compiling them.

The `.po` files under companion/translations/ are the source; the `.mo` files
next to them are build output, compiled when the app is created if they are
missing or older than their `.po`. `python -m companion.web.catalogs` extracts
every text from the code and the templates (babel.cfg says where) and brings the
`.po` files up to date with it; the same as `pybabel extract -F babel.cfg
-k Refusal:2 -o messages.pot . && pybabel update -i messages.pot -d
companion/translations --no-fuzzy-matching --ignore-obsolete
--ignore-pot-creation-date`.
"""
import io
import os
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "companion" / "translations"
MAPPING = ROOT / "babel.cfg"
DOMAIN = "messages"
# The rules core's texts are English templates: the second argument of a Refusal,
# and phrases marked with N_ (companion.phrase), a default keyword.
KEYWORDS = {**DEFAULT_KEYWORDS, "Refusal": (2,)}


def po_files() -> list[Path]:
    return sorted(TRANSLATIONS.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def extract() -> Catalog:
    """Every translatable text of the code and the templates, as a template catalog."""
    with open(MAPPING, encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle, str(MAPPING))
    catalog = Catalog(project="Templari Companion", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
            ROOT, method_map, options_map, keywords=KEYWORDS):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments,
                    context=context)
    return catalog


def read_catalog(path: Path) -> Catalog:
    with open(path, "rb") as handle:
        return read_po(handle, locale=path.parents[1].name, domain=DOMAIN)


def update() -> dict[str, int]:
    """Bring every .po up to date with the sources; per language, texts left untranslated."""
    template = extract()
    untranslated = {}
    for path in po_files():
        catalog = read_catalog(path)
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        buffer = io.BytesIO()
        write_po(buffer, catalog, ignore_obsolete=True)
        path.write_bytes(buffer.getvalue())
        untranslated[path.parents[1].name] = sum(
            1 for message in catalog if message.id and not _translated(message))
    return untranslated


def _translated(message) -> bool:
    """Whether a message has its translation (every plural form, for a plural one)."""
    return all(message.string) if isinstance(message.string, tuple) else bool(message.string)


def compile_stale() -> None:
    """Compile each .po whose .mo is missing or older; written whole or not at all."""
    for path in po_files():
        target = path.with_suffix(".mo")
        if target.exists() and target.stat().st_mtime >= path.stat().st_mtime:
            continue
        buffer = io.BytesIO()
        write_mo(buffer, read_catalog(path), use_fuzzy=False)
        handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".mo.tmp")
        with os.fdopen(handle, "wb") as output:
            output.write(buffer.getvalue())
        os.replace(temporary, target)


if __name__ == "__main__":
    left = update()
    for language, count in left.items():
        print(f"{language}: {count} text(s) to translate")
    sys.exit(0)
