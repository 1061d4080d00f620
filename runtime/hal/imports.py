"""The ``hal`` VM module's imports: one table, read by every side that needs it.

Each row is an import (``hal.`` + name) with its VM calling convention, its arguments in order
and its results. Import names, argument order and calling conventions are IREE's
(compiler/src/iree/compiler/Dialect/HAL/hal.imports.mlir; runtime/src/iree/modules/hal/
exports.inl); the compiler targets exactly this table. Three things are derived from it:

* the Python methods of ``HalModule`` (rt.runtime.hal.module) are declared with
  ``@hal_import(name)``, which takes the calling convention from here and checks that the
  method's parameters are the row's argument names;
* the C entries of the per-call imports (rt.runtime.hal._module) read their arguments through
  constants generated from here (``python runtime/hal/imports_gen.py``, run by setup.py:
  ``runtime/hal/_generated/imports.pxi``), never by literal index;
* tests/hal/test_hal_imports.py checks that every C entry names a row and every row a method.

Argument syntax: ``name`` is one argument; ``name...`` a variadic segment of single values
(``C`` ... ``D`` in the calling convention); ``name=(a, b, c)...`` a variadic segment of
tuples. ``!vm.buffer`` arguments arrive as ``VMBuffer`` (or any bytes-like); null refs as
None. ``queue_affinity`` is accepted and ignored (one queue per device). Flags are ignored. A
null buffer in a command's buffer operand means its binding-table ``slot`` (IREE's indirect
bindings); ``device.queue.execute.indirect`` passes the table.

``buffer.set_encoding`` is rt's addition to IREE's table: it tags a buffer with the layout of
the packed tensor it holds (``Buffer.set_encoding``), which dispatches check against the
executable's ``binding_encodings`` (compiler: an exported encoded tensor).
"""
from collections import namedtuple

#: (import name, calling convention, arguments, results): see the module docstring.
ROWS = (
    ("allocator.allocate", "0rIiiI_r", "allocator, affinity, memory_types, usage, size", "buffer"),
    ("allocator.import", "0riIiirII_r", "allocator, try_, affinity, memory_types, usage, source, offset, length", "buffer (a copy)"),
    ("buffer.assert", "0rrrIii_v", "buffer, message, allocator, minimum_length, memory_types, usage", ""),
    ("buffer.set_encoding", "0rr_v", "buffer, encoding", ""),
    ("buffer.subspan", "0rII_r", "buffer, offset, length", "buffer"),
    ("buffer.length", "0r_I", "buffer", "byte length"),
    ("buffer.load", "0rIi_i", "buffer, offset, length", "value"),
    ("buffer.store", "0irIi_v", "value, buffer, offset, length", ""),
    ("buffer_view.create", "0rIIiiCID_r", "buffer, offset, length, element_type, encoding_type, shape...", "view"),
    ("buffer_view.assert", "0rriiCID_v", "view, message, element_type, encoding_type, shape...", ""),
    ("buffer_view.buffer", "0r_r", "view", "buffer"),
    ("buffer_view.element_type", "0r_i", "view", "element type"),
    ("buffer_view.encoding_type", "0r_i", "view", "encoding type"),
    ("buffer_view.rank", "0r_i", "view", "rank"),
    ("buffer_view.dim", "0ri_I", "view, index", "dim"),
    ("buffer_view.trace", "0rCrD_v", "key, views...", ""),
    ("command_buffer.create", "0riiIi_r", "device, modes, categories, affinity, binding_capacity", "cb (recording)"),
    ("command_buffer.finalize", "0r_v", "cb", ""),
    ("command_buffer.begin_debug_group", "0rr_v", "cb, label", ""),
    ("command_buffer.end_debug_group", "0r_v", "cb", ""),
    ("command_buffer.execution_barrier", "0riiI_v", "cb, source_stage_mask, target_stage_mask, flags", ""),
    ("command_buffer.fill_buffer", "0rrIIiIiI_v", "cb, target, offset, length, slot, pattern, pattern_length, flags", ""),
    ("command_buffer.update_buffer", "0rrIrIIiI_v", "cb, source, source_offset, target, target_offset, length, slot, flags", ""),
    ("command_buffer.copy_buffer", "0riirIrIII_v", "cb, source_slot, target_slot, source, source_offset, target, target_offset, length, flags", ""),
    ("command_buffer.dispatch", "0rrIiiiICiDCiirIID_v", "cb, executable, ordinal, x, y, z, flags, constants..., bindings=(reserved, slot, buffer, offset, length)...", ""),
    ("command_buffer.collective", "0rriiiirrIIIII_v", "cb, channel, op, param, send_slot, recv_slot, send, recv, send_offset, send_length, recv_offset, recv_length, element_count", ""),
    ("channel.create", "0rIIrrii_r", "device, affinity, flags, id, group, rank, count", "channel (-1: the provider's)"),
    ("channel.split", "0riiI_r", "channel, color, key, flags", "channel (null for color -1)"),
    ("channel.rank_and_count", "0r_ii", "channel", "rank, count"),
    ("device.allocator", "0r_r", "device", "allocator"),
    ("device.query.i64", "0rrr_iI", "device, category, key", "ok, value"),
    ("device.queue.alloca", "0rIrrIiiII_r", "device, affinity, wait, signal, pool, memory_types, usage, size, flags", "buffer"),
    ("device.queue.dealloca", "0rIrrrI_v", "device, affinity, wait, signal, buffer, flags", ""),
    ("device.queue.fill", "0rIrrrIIIiI_v", "device, affinity, wait, signal, target, offset, length, pattern, pattern_length, flags", ""),
    ("device.queue.update", "0rIrrrIrIII_v", "device, affinity, wait, signal, source, source_offset, target, target_offset, length, flags", ""),
    ("device.queue.copy", "0rIrrrIrIII_v", "device, affinity, wait, signal, source, source_offset, target, target_offset, length, flags", ""),
    ("device.queue.barrier", "0rIrrI_v", "device, affinity, wait, signal, flags", ""),
    ("device.queue.execute", "0rIrrrI_v", "device, affinity, wait, signal, cb, flags", ""),
    ("device.queue.execute.indirect", "0rIrrrICrIID_v", "device, affinity, wait, signal, cb, flags, table=(buffer, offset, length)...", ""),
    ("device.queue.flush", "0rI_v", "device, affinity", ""),
    ("devices.count", "0v_i", "", "number of devices bound to the context"),
    ("devices.get", "0i_r", "index", "device"),
    ("executable.create", "0rIrrr_r", "device, affinity, format, data, constants", "executable"),
    ("executable.lookup.function", "0rr_I", "executable, name", "ordinal"),
    ("fence.create", "0rI_r", "device, flags", "fence (fresh semaphore, value 1)"),
    ("fence.join", "0ICrD_r", "flags, fences...", "fence"),
    ("fence.query", "0r_i", "fence", "status (0 OK, 17 DEFERRED, else failure code)"),
    ("fence.signal", "0r_v", "fence", ""),
    ("fence.fail", "0ri_v", "fence, status", ""),
    ("fence.await", "0iICrD_i", "timeout_ms, flags, fences...", "0 or 4 (DEADLINE_EXCEEDED)"),
)

#: One argument segment: ``name``, its ``fields`` (one per value of a tuple) and its position.
Segment = namedtuple("Segment", "name fields")


class HalImport(namedtuple("HalImport", "name cconv arguments results")):
    """A parsed row: ``arguments`` is a tuple of names (str) and Segments, in order."""

    @property
    def parameters(self):
        """The Python method's parameter names (after ``self``): one per argument or segment."""
        return tuple(a if isinstance(a, str) else a.name for a in self.arguments)


def _split(text):
    """Top-level comma split of an argument list (commas inside parentheses stay)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return items + [last] if last else items


def _argument(text):
    if not text.endswith("..."):
        return text
    text = text[:-3]
    if "=" not in text:
        return Segment(text, (text,))
    name, fields = text.split("=", 1)
    return Segment(name.strip(), tuple(f.strip() for f in fields.strip("()").split(",")))


def _cconv_groups(cconv):
    """``"0rICiD_v"`` -> ["r", "I", "i"-segment]: a str per argument, a list per segment."""
    args = cconv[1:cconv.index("_")]
    if args == "v":
        return []
    groups, k = [], 0
    while k < len(args):
        if args[k] == "C":
            end = args.index("D", k)
            groups.append(list(args[k + 1:end]))
            k = end + 1
        else:
            groups.append(args[k])
            k += 1
    return groups


def _parse(row):
    name, cconv, arguments, results = row
    parsed = HalImport(name, cconv, tuple(_argument(a) for a in _split(arguments)), results)
    groups = _cconv_groups(cconv)
    shapes = [len(g) if isinstance(g, list) else None for g in groups]
    wanted = [len(a.fields) if isinstance(a, Segment) else None for a in parsed.arguments]
    if shapes != wanted:
        raise ValueError(f"hal import {name}: arguments {arguments!r} do not match the calling "
                         f"convention {cconv!r}")
    return parsed


#: import name -> HalImport
IMPORTS = {row[0]: _parse(row) for row in ROWS}


def pxi_text():
    """The Cython constants of every import's argument positions (imports_gen.py writes them).

    ``<IMPORT>__<ARG>``: the register index of a fixed argument before the first segment.
    ``<IMPORT>__<SEGMENT>``: the first segment's start index, or for a later segment the number
    of fixed arguments between the previous segment and it; ``__SPAN`` its index in the call's
    segment counts, ``__STRIDE`` its values per tuple and ``__<FIELD>`` a field's offset.
    """
    lines = ["# Generated by runtime/hal/imports_gen.py from runtime/hal/imports.py. Do not edit.",
             "cdef enum:"]
    for imp in IMPORTS.values():
        prefix = imp.name.upper().replace(".", "_")
        at, span, since_segment = 0, 0, None
        for arg in imp.arguments:
            if isinstance(arg, str):
                if since_segment is None:
                    lines.append(f"    {prefix}__{arg.upper()} = {at}")
                    at += 1
                else:
                    since_segment += 1
                continue
            seg = f"{prefix}__{arg.name.upper()}"
            lines.append(f"    {seg} = {at if since_segment is None else since_segment}")
            lines.append(f"    {seg}__SPAN = {span}")
            lines.append(f"    {seg}__STRIDE = {len(arg.fields)}")
            if len(arg.fields) > 1:
                lines.extend(f"    {seg}__{f.upper()} = {k}" for k, f in enumerate(arg.fields))
            span, since_segment = span + 1, 0
    return "\n".join(lines) + "\n"
