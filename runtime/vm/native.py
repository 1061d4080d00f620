"""Native modules: Python classes whose methods bytecode calls through imports.

Modelled on iree/vm/native_module.h: a module has a name, and exports functions by name,
each with a calling convention string. A bytecode import ``hal.buffer_view.create`` resolves
to the function ``buffer_view.create`` of the native module named ``hal``.

    class HalModule(NativeModule):
        name = "hal"

        @native_function("buffer_view.create", "0rIIiiCID_r")
        def buffer_view_create(self, buffer, offset, length, element_type, encoding_type, shape):
            ...

Arguments arrive as Python ``int``/``float``/objects (``None`` for a null ref); a variadic
span arrives as a list (a list of tuples when the span has more than one letter). Return
``None`` for no results, the value for one result, a tuple for several. Exceptions propagate
with their own type; the VM adds its stack as a note and as ``exc.vm_stack``.

A module may also give exports a C implementation (``native_functions()``: name ->
``rt.runtime.vm._native.NativeFunction``) that reads the caller's registers directly; the
context binds it instead of the method (which stays the Python-callable form).
"""
from rt.runtime.errors import InvalidArgumentError, NotFoundError
from rt.runtime.vm.cconv import parse_cconv


def native_function(name, cconv):
    """Decorator exporting a method of a :class:`NativeModule` as ``<module>.<name>``.

    ``cconv`` is parsed immediately: a malformed string raises InvalidArgumentError at class
    definition time.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"native_function name must be a non-empty string, got {name!r}")
    sig = parse_cconv(cconv)

    def decorate(fn):
        fn.__rt_native__ = (name, sig)
        return fn

    return decorate


class NativeModule:
    """Base class of modules implemented in Python (``hal``, ``vmvx``, test modules).

    Subclasses set ``name`` and decorate methods with :func:`native_function`. Instances are
    passed to :class:`rt.runtime.vm.Context` before the bytecode modules importing them.
    ``version`` (int) is informative. ``exports`` (class attribute, filled automatically)
    maps function name -> (method name, Signature).
    """

    name = None
    version = 0
    exports = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        exports = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                info = getattr(value, "__rt_native__", None)
                if info is None:
                    continue
                fname, sig = info
                prev = exports.get(fname)
                if prev is not None and prev[0] != attr and klass is cls:
                    raise InvalidArgumentError(
                        f"native module {cls.__name__}: function {fname!r} exported twice "
                        f"(methods {prev[0]!r} and {attr!r}); export each name once"
                    )
                exports[fname] = (attr, sig)
        cls.exports = exports

    def native_functions(self):
        """{export name: NativeFunction} of the exports implemented in C (default: none)."""
        return {}

    def lookup_function(self, name):
        """Return ``(bound method, Signature)`` for the export ``name``; NotFoundError if absent."""
        entry = self.exports.get(name)
        if entry is None:
            raise NotFoundError(
                f"native module {self.name!r} has no function {name!r}; it exports: "
                + ", ".join(sorted(self.exports)) if self.exports else f"native module {self.name!r} exports nothing"
            )
        return getattr(self, entry[0]), entry[1]

    def __repr__(self):
        return f"<NativeModule {self.name!r} with {len(self.exports)} functions>"
