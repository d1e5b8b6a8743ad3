"""The claim registry (data only, no torch): models, the line-aware YAML loader, the dependency graph."""

from .loader import load_registry, registry_files
from .models import (CONVENTIONS, DEFAULT_REGISTRY, PROJECT_ROOT, Check, Claim, Document, Finding, Kind,
                     LeanConstant, LeanLink, Location, Problem, Registry, RegistryError, Verdict, claim_file_schema)

__all__ = ["load_registry", "registry_files", "CONVENTIONS", "DEFAULT_REGISTRY", "PROJECT_ROOT", "Check", "Claim",
           "Document", "Finding", "Kind", "LeanConstant", "LeanLink", "Location", "Problem", "Registry", "RegistryError", "Verdict",
           "claim_file_schema"]
