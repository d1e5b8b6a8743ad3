"""The claim registry (data only, no torch): models, the line-aware YAML loader, the dependency graph."""

from .loader import load_registry, registry_files
from .models import (CONVENTIONS, Check, Claim, Document, Finding, Kind,
                     Location, Problem, Registry, RegistryError, Severity, Verdict, LeanConstant, LeanLink, claim_file_schema)

__all__ = ["load_registry", "registry_files", "CONVENTIONS", "Check", "Claim",
           "Document", "Finding", "Kind", "Location", "Problem", "Registry", "RegistryError", "Severity", "LeanConstant", "LeanLink",
           "Verdict", "claim_file_schema"]
