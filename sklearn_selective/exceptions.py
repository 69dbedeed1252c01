"""Warnings and errors of sklearn-selective, by class, so that users filter them
by class rather than by message.

Turn a warning into an error with :func:`warnings.simplefilter`::

    import warnings
    from sklearn_selective.exceptions import GuaranteeNotMetWarning
    warnings.simplefilter("error", GuaranteeNotMetWarning)

:class:`UndefinedMetricWarning` is scikit-learn's own class, re-exported: one
filter silences (or raises) undefined metrics of both libraries.
"""

from sklearn.exceptions import UndefinedMetricWarning

__all__ = [
    "GuaranteeNotMetWarning",
    "TooFewFailuresWarning",
    "TooFewSamplesError",
    "UndefinedMetricWarning",
]


class GuaranteeNotMetWarning(UserWarning):
    """No threshold meets a requested guarantee (or a requested risk) on the
    validation data, so the classifier abstains on every sample.

    Abstaining is the safe behaviour; a user who prefers a failed ``fit`` turns
    this warning into an error (``warnings.simplefilter("error",
    GuaranteeNotMetWarning)``).

    Examples
    --------
    >>> import warnings
    >>> from sklearn_selective.exceptions import GuaranteeNotMetWarning
    >>> issubclass(GuaranteeNotMetWarning, UserWarning)
    True
    """


class TooFewFailuresWarning(UserWarning):
    """The data hold too few failures (samples with a positive loss) for a
    bootstrap interval of a risk metric to hold its level.

    Examples
    --------
    >>> from sklearn_selective.exceptions import TooFewFailuresWarning
    >>> issubclass(TooFewFailuresWarning, UserWarning)
    True
    """


class TooFewSamplesError(ValueError):
    """The validation data are too few to certify the target risk at all, even
    with no failure; ``needed`` is the fewest validation samples that could.

    A subclass of :class:`ValueError`, so existing ``except ValueError`` code
    keeps working.

    Parameters
    ----------
    message : str
        What is missing and what to do.

    needed : int
        The fewest validation samples that could certify the target.

    Examples
    --------
    >>> from sklearn_selective.exceptions import TooFewSamplesError
    >>> error = TooFewSamplesError("too few", needed=59)
    >>> error.needed
    59
    """

    def __init__(self, message, needed):
        super().__init__(message)
        self.needed = needed
