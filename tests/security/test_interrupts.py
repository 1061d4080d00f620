"""Interruptible, bounded calls (issue 13, defect 4): Ctrl-C, timeout= and fuel= end a pure
bytecode loop with the VM stack, and the module stays usable afterwards."""
import pytest

import rt
from rt.runtime.errors import DeadlineExceededError, InvalidArgumentError, VMTrapError
from rt.runtime.vm import POLL_INTERVAL, Context, Instance, Module, thread_deadline

from spin_module import spin_module
from sigint_child import interrupt_when_ready


def test_sigint_ends_a_bytecode_loop_with_the_vm_stack():
    code, out, err = interrupt_when_ready("""
        import time
        import rt
        from spin_module import spin_module
        m = rt.load(spin_module())
        print("ready")
        try:
            m.spin(2**62)
        except KeyboardInterrupt as e:
            print("stack", e.vm_stack)
        print("after", m.add_i32(2, 3))
    """, delay=0.3)
    assert code == 0, err
    fields = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    assert "spin.mlir" in fields["stack"] or "in @spin" in fields["stack"]
    assert fields["after"] == "5"


def test_timeout_ends_a_bytecode_loop_and_the_module_stays_usable():
    with rt.load(spin_module()) as m:
        with pytest.raises(DeadlineExceededError, match="deadline passed while running bytecode") as info:
            m.spin(2**62, timeout=0.2)
        assert any("in @spin" in f for f in info.value.vm_stack)
        assert thread_deadline() is None  # restored after the call
        assert m.spin(1000, timeout=60) == 1000
        assert m.add_i32(2, 3) == 5


def test_fuel_bounds_a_call_exactly():
    with rt.load(spin_module()) as m:
        assert m.spin(500, fuel=499) == 500  # 499 backward branches
        with pytest.raises(VMTrapError, match="execution budget exhausted"):
            m.spin(500, fuel=498)
        assert m.context.fuel is None  # restored after the call
        assert m.spin(5000) == 5000


@pytest.mark.parametrize("budget", [0, 1, POLL_INTERVAL - 1, POLL_INTERVAL, POLL_INTERVAL + 1, 5000])
def test_context_fuel_counts_every_backward_branch(budget):
    ctx = Context(Instance(), [Module.from_bytes(spin_module())])
    spin = ctx.lookup_function("spinner.spin")
    ctx.fuel = budget
    assert spin(budget + 1) == budget + 1
    assert ctx.fuel == 0
    ctx.fuel = budget
    with pytest.raises(VMTrapError, match="execution budget exhausted"):
        spin(budget + 2)
    assert ctx.fuel == 0
    ctx.fuel = None
    assert spin(3 * POLL_INTERVAL) == 3 * POLL_INTERVAL


def test_bad_limits_rejected():
    with rt.load(spin_module()) as m:
        with pytest.raises(InvalidArgumentError, match="timeout must be None or seconds >= 0"):
            m.spin(1, timeout=-1)
        with pytest.raises(InvalidArgumentError, match="fuel must be None or a non-negative int"):
            m.spin(1, fuel=-5)


def test_load_timeout_ends_a_looping_initializer():
    """A module whose ``__init`` never ends: rt.load(timeout=) stops it with the VM stack; the
    same module with a bounded initializer loads within the limits and works."""
    with pytest.raises(DeadlineExceededError, match="deadline passed while running bytecode") as info:
        rt.load(spin_module(init_iterations=2**62), timeout=0.2)
    assert any("in @__init" in f for f in info.value.vm_stack)
    assert thread_deadline() is None
    with rt.load(spin_module(init_iterations=1000), timeout=60, fuel=999) as m:
        assert m.context.fuel is None  # the initializer's budget does not carry over to calls
        assert m.spin(5000) == 5000


def test_load_fuel_bounds_the_initializer_exactly():
    with pytest.raises(VMTrapError, match="execution budget exhausted"):
        rt.load(spin_module(init_iterations=1000), fuel=998)
    with pytest.raises(InvalidArgumentError, match="fuel must be None or a non-negative int"):
        rt.load(spin_module(), fuel=-1)
    with pytest.raises(InvalidArgumentError, match="timeout must be None or seconds >= 0"):
        rt.load(spin_module(), timeout="soon")


def test_load_timeout_applies_to_every_rank():
    with pytest.raises(DeadlineExceededError):
        rt.load(spin_module(init_iterations=2**62), timeout=0.2, ranks=2)


def test_sigint_ends_a_collective_wait_and_the_world_recovers():
    """Ctrl-C while the main thread waits in an in-process rendezvous (C, without the GIL)
    that the other rank never joins: KeyboardInterrupt, the world is aborted naming the
    interrupted rank, and the next epoch computes."""
    code, out, err = interrupt_when_ready("""
        import threading
        import numpy as np
        from rt.runtime.hal.collective import CollectiveElementType as E, CollectiveKind as K
        from rt.runtime.hal.collective import CollectiveOp, CollectiveReduction as R
        from rt.runtime.hal.drivers.local_channel import LocalWorld
        op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32)
        world = LocalWorld(2)
        channels = [world.provider(r).create_channel(None, None, -1, -1) for r in range(2)]
        print("ready", flush=True)
        try:
            channels[0].collective(op, 0, np.ones(4, np.float32), np.zeros(4, np.float32), 4)
        except KeyboardInterrupt:
            print("interrupted", world._failure)
        try:
            channels[1].collective(op, 0, np.ones(4, np.float32), np.zeros(4, np.float32), 4)
        except Exception as e:
            print("late", e)
        world.new_epoch()
        out = [np.zeros(4, np.float32) for _ in range(2)]
        threads = [threading.Thread(target=channels[r].collective,
                                    args=(op, 0, np.full(4, r + 1, np.float32), out[r], 4))
                   for r in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("after", out[0].tolist(), out[1].tolist())
    """, delay=0.3)
    assert code == 0, err
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    assert lines["interrupted"] == "rank 0 was interrupted"
    assert "rank 1 of 2 aborted: rank 0 was interrupted" in lines["late"]
    assert lines["after"] == "[3.0, 3.0, 3.0, 3.0] [3.0, 3.0, 3.0, 3.0]"
