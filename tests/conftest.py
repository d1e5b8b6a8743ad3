"""Shared helpers: write small registries into a temporary folder."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pyverify.checks import roles
from pyverify.checks.plugins import ensure_content
from pyverify.registry import load_registry

REPO = Path(__file__).resolve().parent.parent
PAPERS = REPO / "pyverify" / "papers" / "claims"  # the five papers' registry (the content package's)
ensure_content()  # the installed content package's functions, hypotheses and guarantees, as in every run
DOC = textwrap.dedent("""\
    documents:
      - key: doc
        title: A test document
        files: [doc.txt]
        ambient_symbols: [R]
    """)


def claim_yaml(cid: str, *, deps: str = "[]", extra: str = "", kind: str = "identity") -> str:
    """One claim entry of a `claims:` list (fields at 4 spaces; line 1 of it is `  - id:`)."""
    body = (f'  - id: "{cid}"\n    title: t\n    document: doc\n    locator: here\n'
            f"    kind: {kind}\n    statement: 'x = x'\n    deps: {deps}\n")
    if extra:
        body += textwrap.indent(textwrap.dedent(extra), "    ")
    return body


@pytest.fixture
def make_registry(tmp_path: Path):
    """make_registry({"a.yaml": "claims:\\n" + claim_yaml(...)}) -> folder with documents.yaml added."""

    count = iter(range(1000))

    def make(files: dict[str, str], with_doc: bool = True) -> Path:
        root = tmp_path / f"r{next(count)}" / "claims"
        root.mkdir(parents=True)
        if with_doc:
            (root / "documents.yaml").write_text(DOC)
        for name, text in files.items():
            (root / name).write_text(text)
        return root

    return make


def compiled_claim(check, kind: str = "identity", cid: str = "A.1", conventions: dict | None = None):
    """A bare check (a dict or a Check) compiled as the engine compiles a registry claim's."""
    from pyverify.checks.claim import compile_claim
    from pyverify.registry import Check

    data = check.model_dump(by_alias=True, exclude_none=True) if isinstance(check, Check) else check
    return compile_claim(bare_claim(data, cid, kind), conventions)


def compile_check(check, conventions: dict | None = None):
    """The evaluator of a bare check at its first sweep assignment."""
    return compiled_claim(check, conventions=conventions).assignments[0]


def bare_claim(check: dict | None, cid: str = "A.1", kind: str = "identity"):
    """A registry claim around a bare check, for the engine's run_claim."""
    from pyverify.registry import Claim

    return Claim.model_validate({"id": cid, "title": "t", "document": "d", "locator": "l", "kind": kind,
                                 "statement": "s", "check": check})


@pytest.fixture
def forget_plugins():
    """Registrations a test makes through pyverify.plugin are forgotten after it (the content stays)."""
    yield
    from pyverify.checks import plugins

    plugins.unload_all()


@pytest.fixture(scope="module")
def shipped():
    """The shipped registry, loaded once per test module (tests only read it)."""
    return load_registry(None)


@pytest.fixture
def unbound_after():
    """No binding outlives the test (use with ``pytestmark = pytest.mark.usefixtures("unbound_after")``)."""
    yield
    roles.unbind_all()
