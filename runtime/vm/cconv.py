"""Calling conventions: IREE-style signature strings such as ``0iI_f`` or ``0rCrD_v``.

A cconv string is ``0`` (the version), the argument letters, ``_`` and the result letters.
Letters: ``i`` i32, ``I`` i64, ``f`` f32, ``F`` f64, ``r`` ref; ``v`` alone means "none".
``C...D`` in the arguments is a variadic span: the letters between repeat a caller-chosen
number of times (``0rCrD_v`` takes one ref, then any number of refs).
Source: iree/vm/native_module.h and the cconv fragments of iree/compiler/Dialect/VM/Target/
Bytecode (``0`` prefix, ``_`` separator, ``C``/``D`` span markers).

Errors: :class:`InvalidArgumentError` for a malformed string, naming the string and the rule.
"""
from rt.runtime.errors import InvalidArgumentError

#: Type letter -> register bank ("i" integer, "f" float, "r" ref).
BANK_OF = {"i": "i", "I": "i", "f": "f", "F": "f", "r": "r"}
#: Type letter -> type name as used by the builder and the manifest.
TYPE_OF = {"i": "i32", "I": "i64", "f": "f32", "F": "f64", "r": "ref"}
LETTER_OF = {v: k for k, v in TYPE_OF.items()}


class Signature:
    """A parsed cconv.

    ``args``: tuple whose items are a letter or a tuple of letters (a variadic span);
    ``results``: tuple of letters; ``text``: the canonical string.
    """

    __slots__ = ("text", "args", "results")

    def __init__(self, text, args, results):
        self.text, self.args, self.results = text, tuple(args), tuple(results)

    @property
    def is_variadic(self):
        return any(isinstance(a, tuple) for a in self.args)

    @property
    def arg_banks(self):
        """Banks of the fixed arguments (only meaningful when not variadic)."""
        return tuple(BANK_OF[a] for a in self.args if not isinstance(a, tuple))

    @property
    def result_banks(self):
        return tuple(BANK_OF[a] for a in self.results)

    def expand_args(self, span_counts):
        """Flat argument letters for a call with ``span_counts[k]`` repetitions of span k."""
        out, k = [], 0
        for a in self.args:
            if isinstance(a, tuple):
                out.extend(a * span_counts[k])
                k += 1
            else:
                out.append(a)
        return out

    @property
    def span_count(self):
        return sum(1 for a in self.args if isinstance(a, tuple))

    def __eq__(self, other):
        return isinstance(other, Signature) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"Signature({self.text!r})"


def _letters(part, text, allow_spans):
    if part == "v":
        return []
    out, i = [], 0
    while i < len(part):
        ch = part[i]
        if ch in BANK_OF:
            out.append(ch)
            i += 1
        elif ch == "C" and allow_spans:
            j = part.find("D", i + 1)
            span = part[i + 1 : j] if j > 0 else ""
            if j < 0 or not span or any(s not in BANK_OF for s in span):
                raise InvalidArgumentError(
                    f"calling convention {text!r}: variadic span at position {i} must be "
                    "'C' + type letters (iIfFr) + 'D', e.g. '0rCrD_v'"
                )
            out.append(tuple(span))
            i = j + 1
        else:
            raise InvalidArgumentError(
                f"calling convention {text!r}: unexpected {ch!r}; expected type letters "
                "i I f F r (or 'v' alone for none)" + (", and C..D spans in arguments" if allow_spans else "")
            )
    return out


_CACHE = {}


def parse_cconv(text):
    """Parse a cconv string into a :class:`Signature` (cached)."""
    sig = _CACHE.get(text) if isinstance(text, str) else None
    if sig is not None:
        return sig
    if not isinstance(text, str) or len(text) > 4096 or not text.startswith("0") or text.count("_") != 1:
        raise InvalidArgumentError(
            f"calling convention {text!r}: expected '0<args>_<results>' like '0iI_f' or '0v_v'"
        )
    args_part, res_part = text[1:].split("_")
    if not args_part or not res_part:
        raise InvalidArgumentError(
            f"calling convention {text!r}: arguments and results must not be empty; use 'v' for none"
        )
    sig = Signature(text, _letters(args_part, text, True), _letters(res_part, text, False))
    if len(_CACHE) < 4096:
        _CACHE[text] = sig
    return sig


def make_cconv(arg_types, result_types):
    """Build a cconv string from type names (``"i32"``, ``"i64"``, ``"f32"``, ``"f64"``, ``"ref"``)."""
    a = "".join(LETTER_OF[t] for t in arg_types) or "v"
    r = "".join(LETTER_OF[t] for t in result_types) or "v"
    return f"0{a}_{r}"
