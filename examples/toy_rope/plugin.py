"""The toy layer's functions in pyverify's check language (load with --plugin examples/toy_rope/plugin.py).

Set TOY_ROPE_FIXED=1 in the environment to register the corrected twin under the same names instead.
"""

import os
import sys
from pathlib import Path

from pyverify import plugin

sys.path.insert(0, str(Path(__file__).parent))
if os.environ.get("TOY_ROPE_FIXED") == "1":
    import toy_layer_fixed as layer
else:
    import toy_layer as layer

PYVERIFY_PLUGIN = "toy_rope"  # the name the registry's `plugins:` refers to

# the registry's `pairing` convention picks the layout: adjacent planes are this layer's "interleaved"
plugin.function("toy_rotate", layer.rotate, doc="the toy layer's rotary embedding of one vector",
                conventions={"pairing": ("layout", {"adjacent": "interleaved", "half": "split"})})
plugin.function("toy_relative_logit", layer.relative_logit, doc="the toy layer's one-rotation logit")
plugin.function("toy_scores", layer.scores, doc="the toy layer's score matrix S[i, j] = <Q_i, K_j>")
# the layer's own keywords for the registry's displacement sign, pairing layout and logit scaling: a claim
# comparing it with pyverify's reference mechanism runs it in the document's conventions
plugin.function("toy_attention_logit", layer.attention_logit, doc="the toy layer's scaled attention logit",
                conventions={"displacement": ("sign", {"rj-ri": 1, "ri-rj": -1}),
                             "pairing": ("layout", {"adjacent": "interleaved", "half": "split"}),
                             "logit_scale": ("scale_by", {"1/sqrt(d)": "full", "1/sqrt(2m)": "active"})})
