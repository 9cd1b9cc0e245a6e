"""Every plotly figure of contextlab, as pure functions: engine results in, ``go.Figure`` out.

One module per view's figures (``overview``, ``duplicates``, ``placement``, ``budget``,
``compare``, ``orderings``, ``curves``, ``window``, ``evaluate``, and the CLI's ``sweep``), and
``style`` for what they share; callers import from the module that holds a figure.
Nothing here imports streamlit or ``contextlab.ui``, and user text reaches plotly only
through ``style.label`` (plotly would otherwise draw ``<a href>``, ``<b>`` and ``<br>`` in it).
"""
