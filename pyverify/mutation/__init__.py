"""The registry mutation pass (``pyverify mutate``): errors planted in each holding claim's own check."""

from .operators import OPERATORS, Mutant, mutants, select
from .run import ClaimMutation, MutantResult, MutationReport, mutate_claim, mutate_registry
from .text import print_report

__all__ = ["OPERATORS", "Mutant", "mutants", "select", "ClaimMutation", "MutantResult", "MutationReport",
           "mutate_claim", "mutate_registry", "print_report"]
