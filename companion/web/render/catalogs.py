"""The message catalogs: extracting the texts, updating the .po files, compiling them.

The `.po` files under companion/translations/ are the source, installed with the
package; the app compiles them in memory when it is created (`compiled`) and writes
no file: an installed package stays as it was installed. From a checkout,
`python -m companion.web.render.catalogs` extracts every text from the code and the
templates (babel.cfg says where) and brings the `.po` files up to date with it; the
same as `pybabel extract -F babel.cfg -k Refusal:2 -o messages.pot . && pybabel
update -i messages.pot -d companion/translations --no-fuzzy-matching
--ignore-obsolete --ignore-pot-creation-date`.
"""
import io
import sys
from functools import lru_cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import Translations

ROOT = Path(__file__).resolve().parents[3]  # the checkout, for extracting the texts
TRANSLATIONS = Path(__file__).resolve().parents[2] / "translations"  # in the package
MAPPING = ROOT / "babel.cfg"
DOMAIN = "messages"
# The rules core's texts are English templates: the second argument of a Refusal,
# and phrases marked with N_ (companion.rules.phrase), a default keyword.
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


def compiled() -> dict[str, Translations]:
    """Each language's translations, by its code ('fr'), compiled from its .po."""
    return {path.parents[1].name: _compile(path, path.stat().st_mtime_ns)
            for path in po_files()}


@lru_cache(maxsize=8)
def _compile(path: Path, modified: int) -> Translations:
    """The .po at `path` as translations, compiled in memory once per version of the
    file: reading it takes some 20 ms, and the tests create hundreds of apps."""
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(path), use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


if __name__ == "__main__":
    left = update()
    for language, count in left.items():
        print(f"{language}: {count} text(s) to translate")
    sys.exit(0)
