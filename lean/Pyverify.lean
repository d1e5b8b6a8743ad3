-- Root module of the pyverify Lean library.
-- Helper A (ESPR tiers T0–T4) imports its modules here; the modules of the other parts
-- (ESPR tiers T5–T8′, RGAT S1–S14, ...) are added at merge time.
import Pyverify.Espr.Defs
import Pyverify.Espr.Tier0
import Pyverify.Espr.Tier1
import Pyverify.Espr.Tier2
import Pyverify.Espr.Tier3
import Pyverify.Espr.Tier4
import Pyverify.Espr.Sharpened
