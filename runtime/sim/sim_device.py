"""``SimDevice``: a topology device whose queue runs in virtual time over a real device.

Every queue entry point is forwarded at once to the real device (the topology's ``uri``, the
*executor*), so arguments are validated at the call exactly as without simulation, but with a
private *gate* fence as its wait fence: the executor holds the work until the simulator
reaches the operation's start in virtual time and signals the gate (or fails it: a failed
wait fence, an injected fault). The simulator signals the caller's signal fence at the
operation's virtual end, once the executor's own fence (*done*) is settled, so data is always
really there when a waiter wakes. Buffers, command buffers and executables are the
executor's; the allocator is the executor's heap, whose capacity is the topology's
``memory``. Semaphores the device creates name the simulation as their producer, so a thread
waiting on them runs the simulation (donation, as IREE's task executor does).

Dry run (``simulation.dry_run``): the executor is a ``local-sync`` device whose heap is a
``VirtualHeapAllocator`` (allocations counted against the capacity, no memory). Allocations and
releases still go through the executor's queue (committed at the operation's virtual start);
``queue_execute``, ``queue_copy``, ``queue_fill`` and ``queue_update`` are checked as they would
be (binding tables; the transfer recorded into a throwaway command buffer) and then run
nothing: the executor gets an operation behind the gate that only holds the operands until it
runs, so no kernel, copy or collective executes, buffers live as long as in a computed run,
and the operation costs only its simulated stages.
"""
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.hal.buffer import BufferUsage, MemoryType
from rt.runtime.hal.command_buffer import CommandBuffer, CommandBufferMode, CommandCategory
from rt.runtime.hal.device import Device
from rt.runtime.hal.drivers._replay import binding_table as checked_binding_table
from rt.runtime.hal.fence import Fence
from rt.runtime.hal.trace import check_sink
from rt.runtime.sim import costs


class SimDevice(Device):
    """Device ``spec.name`` of ``simulation``, executing on ``executor`` (a real device)."""

    def __init__(self, simulation, spec, index, executor, model):
        self.simulation, self.spec, self.index = simulation, spec, index
        self.executor, self.model = executor, model
        self.name = spec.name
        self.uri = spec.uri
        self.label = spec.name
        self.driver_name, self.device_name = executor.driver_name, executor.device_name
        self.loaders = executor.loaders
        self.allocator = executor.allocator
        self.executable_cache = executor.executable_cache
        self.limits = executor.limits
        self.threads = executor.threads
        self.transfer_domain = executor.transfer_domain
        self.submissions = 0
        self._released = False

    def set_trace_sink(self, sink):
        previous, self.trace_sink = self.trace_sink, check_sink(sink, f"{self.label}: "
                                                                     "set_trace_sink")
        return previous

    def can_transfer_with(self, other):
        other = getattr(other, "executor", other)
        return self.executor.can_transfer_with(other)

    # -- objects -----------------------------------------------------------------------------

    def create_semaphore(self, initial_value=0):
        semaphore = self.executor.create_semaphore(initial_value)
        semaphore.producer = self.simulation
        return semaphore

    def create_command_buffer(self, mode=CommandBufferMode.DEFAULT,
                              categories=CommandCategory.ANY, binding_capacity=0):
        return self.executor.create_command_buffer(mode, categories, binding_capacity)

    # -- queue -------------------------------------------------------------------------------

    def _fences(self, wait_fence, signal_fence, where):
        for name, fence in (("wait_fence", wait_fence), ("signal_fence", signal_fence)):
            if fence is not None and not isinstance(fence, Fence):
                raise InvalidArgumentError(f"{where} on {self.label}: {name} must be a Fence or "
                                           f"None, got {fence!r}")
        return (Fence() if wait_fence is None else wait_fence,
                self.create_fence() if signal_fence is None else signal_fence)

    def _submit(self, where, wait_fence, signal_fence, forward, stages, args=None):
        """Forward to the executor behind a gate, then hand the op to the simulation.

        ``forward(gate)`` -> the executor's signal fence; ``stages()`` -> the op's stages
        (called after forward validated the arguments). Returns the signal fence.
        """
        wait_fence, signal_fence = self._fences(wait_fence, signal_fence, where)
        gate = Fence([(self.executor.create_semaphore(0), 1)])
        done = forward(gate)
        try:
            stage_list = stages()
            self.simulation.submit(self, where, wait_fence, signal_fence, gate, done,
                                   stage_list, _op_name(where, stage_list), args or {})
        except BaseException as error:
            gate.fail(error)
            raise
        return signal_fence

    def queue_alloca(self, allocation_size, *, wait_fence=None, signal_fence=None,
                     memory_type=MemoryType.DEVICE_LOCAL, usage=BufferUsage.DEFAULT):
        box = []

        def forward(gate):
            done = self.executor.create_fence()
            box.append(self.executor.queue_alloca(allocation_size, wait_fence=gate,
                                                  signal_fence=done, memory_type=memory_type,
                                                  usage=usage))
            return done

        self._submit("queue_alloca", wait_fence, signal_fence, forward, list,
                     {"bytes": int(allocation_size)})
        return box[0]

    def queue_dealloca(self, buffer, *, wait_fence=None, signal_fence=None):
        return self._submit("queue_dealloca", wait_fence, signal_fence,
                            lambda gate: self.executor.queue_dealloca(buffer, wait_fence=gate),
                            list, {"bytes": getattr(buffer, "byte_length", 0)})

    def _dry(self, where, check):
        """The dry run's forward: ``check()`` the arguments, then an operation behind the gate
        that does nothing but hold what ``check`` returned (the command buffers and so their
        buffers) until the queue reaches it, as a real queue holds its submissions: buffers the
        program dropped die at the same virtual time as in a computed run."""
        def forward(gate):
            operands = check()
            return self.executor._submit(where, gate, None, lambda sink: operands)
        return forward

    def _dry_transfer(self, where, record):
        """Check a transfer by recording it (``record(cb)``) into a throwaway command buffer."""
        def check():
            cb = self.executor.create_command_buffer(CommandBufferMode.ONE_SHOT,
                                                     CommandCategory.TRANSFER)
            cb.begin()
            record(cb)
            cb.end()
            return cb
        return self._dry(where, check)

    def _check_execute(self, command_buffers, binding_table):
        for index, cb in enumerate(command_buffers):
            if not isinstance(cb, CommandBuffer) or cb.device is not self.executor:
                raise InvalidArgumentError(f"queue_execute on {self.label}: command buffer {index} "
                                           f"({cb!r}) was not created by this device")
        checked_binding_table(self.executor, "queue_execute", command_buffers, binding_table)
        return command_buffers, binding_table

    def queue_execute(self, command_buffers, *, wait_fence=None, signal_fence=None,
                      binding_table=None):
        if isinstance(command_buffers, CommandBuffer):
            command_buffers = [command_buffers]
        command_buffers = tuple(command_buffers)
        if self.simulation.dry_run:
            forward = self._dry("queue_execute",
                                lambda: self._check_execute(command_buffers, binding_table))
        else:
            def forward(gate):
                return self.executor.queue_execute(command_buffers, wait_fence=gate,
                                                   binding_table=binding_table)
        return self._submit(
            "queue_execute", wait_fence, signal_fence, forward,
            lambda: costs.execute_stages(self.model, command_buffers,
                                         self.simulation.device_of_buffer, binding_table),
            {"command_buffers": len(command_buffers)})

    def queue_copy(self, source, source_offset, target, target_offset, length, *,
                   wait_fence=None, signal_fence=None):
        sim = self.simulation
        if sim.dry_run:
            forward = self._dry_transfer("queue_copy", lambda cb: cb.copy_buffer(
                source, source_offset, target, target_offset, length))
        else:
            def forward(gate):
                return self.executor.queue_copy(source, source_offset, target, target_offset,
                                                length, wait_fence=gate)
        return self._submit(
            "queue_copy", wait_fence, signal_fence, forward,
            lambda: costs.copy_stages(self.model, sim.device_of_buffer(source),
                                      sim.device_of_buffer(target), int(length)),
            {"bytes": int(length)})

    def queue_fill(self, target, target_offset, length, pattern, pattern_length, *,
                   wait_fence=None, signal_fence=None):
        if self.simulation.dry_run:
            forward = self._dry_transfer("queue_fill", lambda cb: cb.fill_buffer(
                target, target_offset, length, pattern, pattern_length))
        else:
            def forward(gate):
                return self.executor.queue_fill(target, target_offset, length, pattern,
                                                pattern_length, wait_fence=gate)
        return self._submit(
            "queue_fill", wait_fence, signal_fence, forward,
            lambda: costs.write_stages(self.model, "fill", int(length)), {"bytes": int(length)})

    def queue_update(self, source, source_offset, target, target_offset, length, *,
                     wait_fence=None, signal_fence=None):
        if self.simulation.dry_run:
            forward = self._dry_transfer("queue_update", lambda cb: cb.update_buffer(
                source, source_offset, target, target_offset, length))
        else:
            def forward(gate):
                return self.executor.queue_update(source, source_offset, target, target_offset,
                                                  length, wait_fence=gate)
        return self._submit(
            "queue_update", wait_fence, signal_fence, forward,
            lambda: costs.write_stages(self.model, "update", int(length)),
            {"bytes": int(length)})

    def queue_barrier(self, *, wait_fence=None, signal_fence=None):
        return self._submit("queue_barrier", wait_fence, signal_fence,
                            lambda gate: self.executor.queue_barrier(wait_fence=gate), list)

    def release(self):
        if self._released:
            return
        self._released = True
        self.executor.release()

    def __repr__(self):
        return f"<SimDevice {self.name} on {self.executor.label}>"


def _op_name(where, stages):
    """``queue_execute: a, b, c, ...`` (its dispatches) or the operation's name."""
    names = [s.name for s in stages if isinstance(s, costs.Compute) and "workgroups" in s.args]
    if not names:
        return where
    more = ", ..." if len(names) > 3 else ""
    return f"{where}: {', '.join(names[:3])}{more}"
