"""Op handlers looked up by op class, not by names built from strings.

A pass or lowering that treats some ops specially marks each method with
``@handles(OpClass, ...)`` and declares ``handler = OpHandlers()`` in its class body; then
``self.handler(op)`` is the bound method for ``op``'s class (or the nearest base class that has
one, so an op built from xDSL's class and one parsed into rt's subclass of it find the same
handler), or None. The table is built once per class, when the class is created, so a handler
for a class that does not exist fails at import time instead of silently never matching.

Source: the review finding of issue 8 item 7 (handlers were found with
``getattr(self, "_" + op.name.replace(".", "_"))``); MLIR's ``OpRewritePattern<OpTy>`` /
``TypeSwitch`` dispatch on the op class the same way.
"""


def handles(*op_classes):
    """Mark a method as the handler of ``op_classes`` (xDSL Operation subclasses)."""
    if not op_classes or not all(isinstance(c, type) for c in op_classes):
        raise TypeError(f"handles() takes op classes, got {op_classes!r}")

    def mark(fn):
        fn.__op_handles__ = getattr(fn, "__op_handles__", ()) + op_classes
        return fn
    return mark


class OpHandlers:
    """Class attribute collecting the ``@handles`` methods of its class (and its bases)."""

    def __set_name__(self, owner, name):
        self.table = {}
        for klass in reversed(owner.__mro__):
            for attr in vars(klass).values():
                fn = getattr(attr, "__func__", attr)
                for op_class in getattr(fn, "__op_handles__", ()):
                    self.table[op_class] = attr

    def lookup(self, op_class):
        """The handler (unbound) for ``op_class`` or its nearest base class, or None."""
        for klass in op_class.__mro__:
            if klass in self.table:
                return self.table[klass]
        return None

    def __get__(self, obj, owner):
        if obj is None:
            return self
        handlers = self

        def bound(op):
            fn = handlers.lookup(type(op))
            return None if fn is None else fn.__get__(obj, owner)
        return bound


class OpTable:
    """Data keyed by op class, looked up by an op (or op class) through its class's MRO.

    For tables such as ``{arith.AddfOp: "fadd", arith.SubfOp: "fsub"}`` that were keyed by op
    name strings: ``table[op]`` / ``table.get(op)`` / ``op in table`` find the entry of the op's
    class or of its nearest base class that has one, so an op built from xDSL's class and one
    parsed into rt's subclass find the same entry. Keys must be op classes (TypeError
    otherwise), so a misspelled op fails at import time instead of silently never matching.
    """

    __slots__ = ("_table", "_cache")

    def __init__(self, entries=()):
        self._table = dict(entries)
        bad = [k for k in self._table if not isinstance(k, type)]
        if bad:
            raise TypeError(f"OpTable keys must be op classes, got {bad!r}")
        self._cache = {}

    def _class_of(self, op_or_class):
        return op_or_class if isinstance(op_or_class, type) else type(op_or_class)

    def _find(self, op_or_class):
        klass = self._class_of(op_or_class)
        try:
            return self._cache[klass]
        except KeyError:
            pass
        found = (False, None)
        for base in klass.__mro__:
            if base in self._table:
                found = (True, self._table[base])
                break
        self._cache[klass] = found
        return found

    def get(self, op_or_class, default=None):
        """The entry for ``op_or_class`` (an op or an op class), or ``default``."""
        present, value = self._find(op_or_class)
        return value if present else default

    def __getitem__(self, op_or_class):
        present, value = self._find(op_or_class)
        if not present:
            raise KeyError(self._class_of(op_or_class).__name__)
        return value

    def __contains__(self, op_or_class):
        return self._find(op_or_class)[0]

    def keys(self):
        """The op classes with an entry."""
        return self._table.keys()

    def items(self):
        """``(op class, entry)`` pairs."""
        return self._table.items()

    def __len__(self):
        return len(self._table)

    def __iter__(self):
        return iter(self._table)
