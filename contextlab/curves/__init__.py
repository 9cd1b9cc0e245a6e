"""Position curves: how well a model reads each position of its prompt, published or measured.

``curve_file`` reads and checks a curve file (the format every curve is kept in: the published
one, a measured one, an upload), ``published`` holds Liu et al.'s curves (read at any document
count and position), ``reading`` reads one for a block with the uncertainty its questions give,
``scores`` scores an ordering under a curve, ``outcomes`` reads a measured curve's per-question
outcomes, and ``evidence`` decides what a curve shows (intervals, paired tests, the only sentences
about its shape). Placement "curve" (``stages.reorder``) follows the ``PositionCurve`` these give.
"""
