"""What content packages and plugins contribute beyond the check language: report figures, the claims a
mechanism's guarantees rest on, the packages of reference mechanisms the implementation view lists, and
the registry pyverify checks when no ``--registry`` is given.

A *content package* is an installed package declared under the ``pyverify.content`` entry-point group:
a module with ``register()`` (it registers its functions, samplers, figures and guarantees through
``pyverify.plugin``, the API every user has), and optionally ``REGISTRY`` (the folder of its claims) and
``LEAN_SOURCES`` (its Lean formalization) and ``DOCUMENTS`` (the folder of its source documents). Reading ``REGISTRY`` imports only that module, which must stay
light (no torch): the registry layer reads it.

This module imports nothing from pyverify: every layer may read what was contributed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

CONTENT_GROUP = "pyverify.content"


@dataclass(frozen=True)
class Figure:
    """A report-wide figure: ``draw(out)`` writes it below the report folder ``out`` and returns its
    path relative to ``out`` (None: nothing to show). It is drawn only for a registry with a claim whose
    check runs one of ``about`` (qualified names of reference functions), and shown with those claims."""

    name: str
    draw: Callable[[Path], str | None]
    about: tuple[str, ...]
    owner: str
    caption: str = ""  # the words under it (and its alternative text) on the report page


@dataclass(frozen=True)
class Guarantees:
    """The behaviours a user of a mechanism (a class or function, by qualified name) relies on, each
    resting on one registry claim, with what it means in words."""

    mechanism: str
    rests_on: dict[str, str]  # guarantee -> claim id
    meanings: dict[str, str]  # guarantee -> the report's words
    owner: str


FIGURES: dict[str, Figure] = {}
GUARANTEES: dict[str, Guarantees] = {}
REFERENCE_PACKAGES: dict[str, str] = {}  # package name -> owner: its public functions and classes are listed


def content_packages() -> dict[str, Any]:
    """The installed content packages: entry-point name -> entry point (nothing imported yet)."""
    return {ep.name: ep for ep in entry_points(group=CONTENT_GROUP)}


def _module(ep: Any) -> ModuleType:
    return ep.load()


def default_registry() -> Path | None:
    """The registry of the installed content package(s) that declare one (None when none does); more
    than one is ambiguous: ValueError naming them."""
    found = {name: getattr(_module(ep), "REGISTRY", None) for name, ep in content_packages().items()}
    found = {name: Path(path) for name, path in found.items() if path is not None}
    if len(found) > 1:
        raise ValueError(f"several content packages declare a registry ({', '.join(sorted(found))}): "
                         "name one with --registry")
    return next(iter(found.values()), None)


def documents_folder() -> Path | None:
    """Where the installed content package's source documents (its documents' ``files``) lie, if it
    says; the report links a claim's locator into them."""
    for ep in content_packages().values():
        path = getattr(_module(ep), "DOCUMENTS", None)
        if path is not None:
            return Path(path)
    return None


def lean_sources() -> Path | None:
    """The Lean formalization of the installed content package that declares one, if any."""
    for ep in content_packages().values():
        path = getattr(_module(ep), "LEAN_SOURCES", None)
        if path is not None:
            return Path(path)
    return None


def forget(owner: str) -> None:
    """Drop everything ``owner`` contributed (a plugin unloaded)."""
    for table in (FIGURES, GUARANTEES):
        for key in [k for k, v in table.items() if v.owner == owner]:
            del table[key]
    for key in [k for k, v in REFERENCE_PACKAGES.items() if v == owner]:
        del REFERENCE_PACKAGES[key]
