"""Parameters for ``rt.load(..., parameters=...)`` and ``python -m rt run --parameters=``.

A module compiled from ``util.global``s initialized with ``#flow.parameter.named<"scope"::"key">``
imports ``io_parameters.load`` and reads those parameters from files when it initializes. This
module turns what the user gives into the :class:`rt.runtime.io.parameters_module.IoParametersModule`
the module links against:

* a path (``"weights.irpa"``, ``"model.safetensors"``): the file's parameters, unscoped;
* ``"scope=path"`` (as ``iree-run-module --parameters=scope=file``): under ``scope``;
* a list of those (repeatable, like the flag);
* a mapping ``{scope: path | [paths] | {key: array}}`` (``""`` is the unscoped scope);
* a :class:`rt.runtime.io.parameter_index.ParameterIndex` built by hand.

The module's ``rt.parameters`` attribute (docs/compiled_module_abi.md) lists the parameters it
declares with their tensor types, so a missing scope or key, or a tensor of another shape,
element type or size, is reported naming the parameter, the file and what was expected.
Source followed: IREE's ``iree-run-module --parameters`` and ``iree.runtime.ParameterIndex``.
"""
import json
import os

from rt.runtime.errors import InvalidArgumentError, ModuleFormatError

ATTRIBUTE = "rt.parameters"


def _split_spec(spec):
    """``"scope=path"`` -> (scope, path); a path that exists, or has no ``=``, is unscoped."""
    text = os.fspath(spec)
    scope, sep, path = text.partition("=")
    if not sep or os.path.exists(text) or os.sep in scope:
        return "", text
    return scope, path


def parameter_index(parameters):
    """A ParameterIndex for any accepted ``parameters`` value (see the module docstring).

    Raises InvalidArgumentError for an unsupported value, NotFoundError for a missing file and
    the readers' errors for bad files.
    """
    from rt.runtime.io.parameter_index import ParameterIndex  # lazily: most modules have none

    if isinstance(parameters, ParameterIndex):
        return parameters
    index = ParameterIndex()
    if parameters is None:
        return index
    if isinstance(parameters, (str, os.PathLike)):
        parameters = [parameters]
    if isinstance(parameters, dict):
        for scope, value in parameters.items():
            if not isinstance(scope, str):
                raise InvalidArgumentError(f"parameters: scope {scope!r} must be a string ('' for unscoped)")
            if isinstance(value, dict):
                for key, array in value.items():
                    index.add_array(str(key), array, scope)
                continue
            for path in [value] if isinstance(value, (str, os.PathLike)) else value:
                index.add_file(path, scope)
        return index
    if isinstance(parameters, (list, tuple)):
        for spec in parameters:
            if not isinstance(spec, (str, os.PathLike)):
                raise InvalidArgumentError(f"parameters: expected a path or 'scope=path', got {spec!r}")
            scope, path = _split_spec(spec)
            index.add_file(path, scope)
        return index
    raise InvalidArgumentError(f"parameters must be a path, 'scope=path', a list of those, a {{scope: path}} "
                               f"mapping or a ParameterIndex, got {type(parameters).__name__}")


def declared_parameters(module):
    """``{(scope, key): {"type", "element", "shape"}}`` from the module's ``rt.parameters``."""
    text = module.attributes.get(ATTRIBUTE) if hasattr(module, "attributes") else None
    if not text:
        return {}
    try:
        return {(p["scope"], p["key"]): p for p in json.loads(text)}
    except (ValueError, KeyError, TypeError) as e:
        raise ModuleFormatError(f"module attribute {ATTRIBUTE} is malformed: {e}") from None


def parameters_module(module, parameters):
    """The ``io_parameters`` module for ``module`` (a vm Module) and ``parameters``, or None when
    the module does not import it and no parameters were given."""
    imports = {imp.module_name for imp in module.imports}
    if "io_parameters" not in imports and parameters is None:
        return None
    from rt.runtime.io.parameters_module import IoParametersModule

    return IoParametersModule(parameter_index(parameters), declared_parameters(module))
