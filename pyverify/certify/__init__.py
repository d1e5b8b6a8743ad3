"""Certification of a trained rotary layer: measure the hypotheses the guarantees need (commuting
generators, a structured post-rotation, ...) and say which guarantees then hold, each resting on a
registry claim whose verdict is computed in the same run. ``layer``: pyverify's own ESPR layer from its
state dict; ``general``: any rotary layer described by its matrices (both tensor-only: the layer's code is
not run). ``module`` (the adapter protocol), ``running`` (the laws), ``locate`` (where a defect is): any
``nn.Module`` layer, run."""

from .general import LayerDescriptionError, certify_layer, describe
from .layer import MECHANISM, HeadReport, certify, measure, rests_on
from .module import AdapterError, ModuleAdapter, RotarySpec
from .running import ModuleReport, certify_module

__all__ = ["certify", "certify_layer", "describe", "measure", "rests_on", "HeadReport", "LayerDescriptionError",
           "MECHANISM", "AdapterError", "ModuleAdapter", "RotarySpec", "ModuleReport", "certify_module"]
