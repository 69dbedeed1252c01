"""The command line, ``sklearn-selective`` or ``python -m sklearn_selective``.

``_main`` builds the parser and dispatches, ``_evaluate`` scores a prediction
file (read by ``_files``, interpreted by ``_predictions``), ``_report`` formats
the metrics, ``_demo`` runs the demo. The console script is
``sklearn_selective._cli:main``.
"""

from ._main import main as main  # the console script sklearn_selective._cli:main
