"""The risk-coverage Display, as scikit-learn keeps its Displays in
``sklearn/metrics/_plot/``: ``_data`` computes the curves from the public
metrics, ``_display`` draws them (matplotlib imported only when drawing)."""
