"""Storage planning for one ``stream.async.execute`` region (used by ``iree-stream-schedule-allocation``).

Every resource value in the region shares storage with a *root*: values that update another in
place (fill/update/copy targets, tied dispatch results), ``stream.async.concurrent`` block
arguments and results alias what they stand for; the roots are the region's operands, hoisted
constants and the results of ops that create a new resource. Each root created inside the
region gets one storage class:

* ``result`` — it (or an alias) is yielded: allocated outside with ``stream.resource.alloc``;
* ``transient`` — otherwise: a slice of one transient allocation, with the lifetime interval
  ``[first op, last op]`` (indices of the region's top-level ops) for ``stream.resource.pack``.

:class:`Plan` maps each value to its root and the root to ``(resource, base offset, size)``
once the caller has created the storage.

Source followed: IREE ``Stream/Transforms/ScheduleAllocation.cpp`` (AllocationScope,
computeResourceLifetimes).
"""
from rt.compiler.dialects import stream
from rt.compiler.dialects.stream_types import ResourceType
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.stream.async_ops import ancestor_in, tied_operand


class Plan:
    """Aliases, roots and storage classes of the resources of one execute region."""

    def __init__(self, execute):
        self.execute = execute
        self.body = execute.body.blocks[0]
        self.alias = {}
        self.constants = []
        self.index = {}
        self.storage = {}
        self._collect(self.body)
        self._number()
        self.yielded = self._yielded()
        self.results, self.transients = self._classify()

    # -- analysis --------------------------------------------------------------------------
    def _collect(self, block):
        for op in block.ops:
            if isinstance(op, stream.AsyncConstantOp):
                self.constants.append(op)
            elif isinstance(op, stream.AsyncConcurrentOp):
                inner = op.body.blocks[0]
                for arg, operand in zip(inner.args, op.resource_operands):
                    self.alias[arg] = operand
                self._collect(inner)
                for result, value in zip(op.results_, inner.last_op.resource_operands):
                    self.alias[result] = value
            for i, result in enumerate(op.results):
                tied = tied_operand(op, i) if not isinstance(op, stream.AsyncConcurrentOp) else None
                if tied is not None:
                    self.alias[result] = tied

    def root(self, value):
        """The value whose storage ``value`` uses."""
        while value in self.alias:
            value = self.alias[value]
        return value


    def _number(self):
        for i, op in enumerate(self.body.ops):
            self.index[op] = i

    def _yielded(self):
        found = {}
        for k, value in enumerate(self.body.last_op.resource_operands):
            root = self.root(value)
            if root in found and self._is_inner(root):
                raise error_at_op(self.execute, f"results {found[root]} and {k} of stream.async.execute share "
                                                "storage; run iree-stream-materialize-copy-on-write first")
            found.setdefault(root, k)
        return found

    def _is_inner(self, root):
        return getattr(root, "op", None) is not None and not isinstance(root.op, stream.AsyncConstantOp) and \
            self.execute.is_ancestor(root.op)

    def _classify(self):
        results, transients = {}, {}
        members = {}
        for value in self._values():
            members.setdefault(self.root(value), []).append(value)
        for op in self.body.walk():
            if op is self.body.last_op:
                continue
            for value in op.results:
                if not isinstance(value.type, ResourceType) or self.root(value) is not value:
                    continue
                if not self._is_inner(value):
                    continue
                if value in self.yielded:
                    results[value] = self.yielded[value]
                else:
                    transients[value] = self._interval(members[value])
        return results, transients

    def _interval(self, members):
        """(first, last) top-level op index touching any of ``members`` (one root's values)."""
        points = []
        for value in members:
            points.append(self.index[ancestor_in(self.body, value.op)] if hasattr(value, "op") else 0)
            for use in value.uses:
                if self.execute.is_ancestor(use.operation) and use.operation is not self.body.last_op:
                    points.append(self.index[ancestor_in(self.body, use.operation)])
        return min(points), max(points)

    def _values(self):
        for op in self.body.walk():
            yield from op.results
            for region in op.regions:
                for block in region.blocks:
                    yield from block.args

    # -- storage ---------------------------------------------------------------------------
    def assign(self, root, resource, offset, size):
        """Record that ``root`` lives at ``resource[offset for size]``."""
        self.storage[root] = (resource, offset, size)

    def range_of(self, value):
        """(resource block argument, base offset, storage size) of ``value``."""
        return self.storage[self.root(value)]
