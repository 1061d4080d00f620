"""``Record``: the base of the runtime's small immutable records (``ExportInfo``, ``Lane``,
``CollectiveOp``, the HAL command records, ...).

A record behaves as a frozen dataclass: its fields are its ``__slots__`` (in constructor
order) and trailing ones may have defaults (``_defaults``); it is built positionally or by
keyword, compares equal and hashes by its fields within one record class, prints as
``Name(field=value, ...)``, refuses assignment with AttributeError and pickles / copies by its
fields. It is a plain class: declaring a dataclass costs ~0.4 ms at import, and the ten a run
loaded were ~5 ms of ``rt run``'s start (issue 24 item 6).

Raises TypeError, as a dataclass's ``__init__`` does, for a missing, unknown or repeated
argument.
"""
_set = object.__setattr__


class Record:
    """Base class; a subclass lists its fields in ``__slots__`` and their defaults in
    ``_defaults`` ({field: default}, trailing fields only)."""

    __slots__ = ()
    _defaults = {}

    def __init__(self, *args, **kwargs):
        names = self.__slots__
        name = type(self).__name__
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r} "
                                f"(fields: {', '.join(names)})")
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            values[key] = value
        for key in names:
            if key in values:
                _set(self, key, values[key])
            elif key in self._defaults:
                _set(self, key, self._defaults[key])
            else:
                raise TypeError(f"{name}() missing required argument {key!r}")

    def _values(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}: a {type(self).__name__} is immutable")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}: a {type(self).__name__} is immutable")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self):
        return type(self), self._values()
