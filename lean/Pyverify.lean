-- Root module of the pyverify Lean library: every module of the formalization.
-- ESPR derivation (tiers T0–T8′)
import Pyverify.Espr.Defs
import Pyverify.Espr.Tier0
import Pyverify.Espr.Tier1
import Pyverify.Espr.Tier2
import Pyverify.Espr.Tier3
import Pyverify.Espr.Tier4
import Pyverify.Espr.Sharpened
import Pyverify.Espr.DefsLate
import Pyverify.Espr.Tier5
import Pyverify.Espr.Tier6
import Pyverify.Espr.Tier6p
import Pyverify.Espr.Tier7
import Pyverify.Espr.Tier8p
-- RGAT supplement (S1–S14)
import Pyverify.Rgat.Defs
import Pyverify.Rgat.DefClaims
import Pyverify.Rgat.LogMap
import Pyverify.Rgat.S01
import Pyverify.Rgat.S02
import Pyverify.Rgat.S03
import Pyverify.Rgat.S04
import Pyverify.Rgat.S04Neg
import Pyverify.Rgat.S05
import Pyverify.Rgat.S07
import Pyverify.Rgat.S09
import Pyverify.Rgat.S10
import Pyverify.Rgat.S12
import Pyverify.Rgat.S14
