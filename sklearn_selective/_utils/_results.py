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
    ``to_frame``, and name the keyword options of their ``to_dict`` in
    ``_DICT_OPTIONS`` (``to_json`` passes them on to it)."""

    # The keyword arguments of to_dict that to_json accepts (the bootstrap
    # results keep their distribution); every other one goes to json.dumps.
    _DICT_OPTIONS = ("include_distribution",)

    def to_json(self, **kwargs):
        """The result as JSON text: :meth:`to_dict` serialised by :func:`json.dumps`.

        Parameters
        ----------
        **kwargs : dict
            The keyword options of :meth:`to_dict` (``include_distribution``
            for a bootstrap result, to include the bootstrap distribution), and
            the keyword arguments of :func:`json.dumps`, e.g. ``indent=2``
            (``allow_nan=True`` too, though ``to_dict`` leaves no ``nan``).

        Returns
        -------
        text : str
            Strict JSON: undefined values (``nan``) are ``null``.
        """
        options = {
            name: kwargs.pop(name) for name in self._DICT_OPTIONS if name in kwargs
        }
        kwargs.setdefault("allow_nan", False)
        return json.dumps(self.to_dict(**options), **kwargs)
