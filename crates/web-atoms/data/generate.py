#!/usr/bin/env python3
"""Writes the two data files of the web_atoms stand-in (see ../README.md).

    python3 crates/web-atoms/data/generate.py [CARGO_REGISTRY_SRC_DIR]

- entities.txt: the WHATWG named character references (HTML Living Standard, 13.5), as
  Python's standard library carries them (html.entities.html5): one per line, sorted by
  bytes, `name<TAB>code point[ code point]` in hex. Names keep their `;`; the legacy ones
  that may appear without it are listed a second time without it, as the standard does.
- local_names.txt: every tag and attribute name html5ever, markup5ever and ammonia compare
  against as a static atom (their `local_name!`, `expanded_name!`, `qualname!`, `tag!` and
  tag-set names), read from their sources in the cargo registry. A name missing here is a
  compile error in those crates, never a wrong parse; a name not listed parses to a
  dynamic atom that nothing compares with a static one.

Only needed to regenerate the files; the build reads them (../build.rs).
"""
import glob
import html.entities
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CRATES = {"html5ever": "0.40.1", "markup5ever": "0.40.0", "ammonia": "4.2.4"}


def write_entities():
    rows = []
    for name, text in html.entities.html5.items():
        cps = [ord(c) for c in text]
        assert 1 <= len(cps) <= 2, name
        rows.append((name.encode(), " ".join(f"{cp:x}" for cp in cps)))
    rows.sort()
    with open(os.path.join(HERE, "entities.txt"), "w") as out:
        for name, cps in rows:
            out.write(f"{name.decode()}\t{cps}\n")
    return len(rows)


NAME = r"[A-Za-z][A-Za-z0-9_:-]*"
# The string literals of a macro call's arguments, and tag!'s bare `<name>` / `</name>`.
LITERAL = re.compile(r'"(' + NAME + r')"')
BARE_TAG = re.compile(r"</?(" + NAME + r")>")
MACROS = re.compile(
    r"\b(local_name|expanded_name|qualname|tag|declare_tag_set)!\s*\(", re.S
)


def macro_args(source, start):
    """The text between the '(' at `start` and its matching ')'."""
    depth = 0
    for i in range(start, len(source)):
        if source[i] == "(":
            depth += 1
        elif source[i] == ")":
            depth -= 1
            if depth == 0:
                return source[start + 1 : i]
    return source[start + 1 :]


def write_local_names(registry):
    names = set()
    for crate, version in CRATES.items():
        root = os.path.join(registry, f"{crate}-{version}")
        files = glob.glob(os.path.join(root, "**", "*.rs"), recursive=True)
        assert files, f"no sources for {crate} {version} under {registry}"
        for path in files:
            if os.sep + "tests" + os.sep in path or os.sep + "benches" + os.sep in path:
                continue
            source = open(path, encoding="utf-8").read()
            for call in MACROS.finditer(source):
                args = macro_args(source, call.end() - 1)
                names.update(LITERAL.findall(args))
                if call.group(1) == "tag":
                    names.update(BARE_TAG.findall(args))
    with open(os.path.join(HERE, "local_names.txt"), "w") as out:
        for name in sorted(names):
            out.write(name + "\n")
    return len(names)


def main():
    if len(sys.argv) > 1:
        registry = sys.argv[1]
    else:
        home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
        found = glob.glob(os.path.join(home, "registry", "src", "*", "html5ever-*"))
        assert found, "pass the cargo registry's src directory"
        registry = os.path.dirname(found[0])
    print("entities:", write_entities())
    print("local names:", write_local_names(registry))


if __name__ == "__main__":
    main()
