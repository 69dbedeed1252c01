"""The one base of every result object: ``to_json`` from ``to_dict``, and
pandas imported only where ``to_frame`` needs it."""

import json


def import_pandas(owner):
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            f"{owner}.to_frame() needs pandas, which is not installed. Install it "
            "(pip install pandas), or use to_dict() / to_json(), which need no "
            "extra package."
        ) from error
    return pandas


class ResultMixin:
    """``to_json`` from ``to_dict``; subclasses define both ``to_dict`` and
    ``to_frame``."""

    def to_json(self, *, include_distribution=False, **json_kwargs):
        """The result as JSON text: :meth:`to_dict` serialised by :func:`json.dumps`.

        Parameters
        ----------
        include_distribution : bool, default=False
            Whether to include the bootstrap distribution (one value per
            resample).

        **json_kwargs : dict
            Passed to :func:`json.dumps`, e.g. ``indent=2``.

        Returns
        -------
        text : str
            Strict JSON: undefined values (``nan``) are ``null``.
        """
        data = self.to_dict(include_distribution=include_distribution)
        json_kwargs.setdefault("allow_nan", False)
        return json.dumps(data, **json_kwargs)
