"""One judge per kind of relation: what a kind's measurements mean for the verdict.

Pointwise identities and bounds, unnamed constants and existence are judged on the adversarial search
(``engine/pipeline.py``); measured orders and Monte-Carlo expectations run measurements of their own.
"""

from __future__ import annotations

from ...checks.claim import RelationKind
from .constant_judge import ConstantJudge
from .exists import ExistenceJudge
from .expectation import ExpectationJudge
from .order import OrderJudge
from .pointwise import PointwiseJudge

JUDGES = {
    RelationKind.pointwise: PointwiseJudge,
    RelationKind.constant: ConstantJudge,
    RelationKind.exists: ExistenceJudge,
    RelationKind.order: OrderJudge,
    RelationKind.expectation: ExpectationJudge,
}

__all__ = ["JUDGES"]
