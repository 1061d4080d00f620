"""Collectives on the in-process channel provider, against numpy: every kind, reduction and
element type on 1, 2, 3, 4 and 8 ranks, sizes not divisible by the rank count."""
import os
import threading

import ml_dtypes
import numpy as np
import pytest

from rt.runtime.errors import DeviceError, InvalidArgumentError
from rt.runtime.hal.collective import (
    CollectiveElementType as E,
    CollectiveKind as K,
    CollectiveOp,
    CollectiveReduction as R,
    compute,
)
from rt.runtime.hal.driver_registry import create_device
from rt.runtime.hal.drivers.local_channel import LocalWorld

RANKS = [1, 2, 3, 4, 8]
NUMPY = {E.SINT_8: np.int8, E.UINT_8: np.uint8, E.SINT_16: np.int16, E.UINT_16: np.uint16,
         E.SINT_32: np.int32, E.UINT_32: np.uint32, E.SINT_64: np.int64, E.UINT_64: np.uint64,
         E.FLOAT_16: np.float16, E.FLOAT_32: np.float32, E.FLOAT_64: np.float64,
         E.BFLOAT_16: ml_dtypes.bfloat16}


def _run_ranks(n, body):
    """``body(rank, channel)`` on n threads of one LocalWorld; returns per-rank results."""
    world = LocalWorld(n)
    out, errors = [None] * n, [None] * n

    def run(r):
        try:
            out[r] = body(r, world.provider(r).create_channel(None, None, -1, -1))
        except Exception as e:
            errors[r] = e

    threads = [threading.Thread(target=run, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a rank hung"
    return out, errors


def _values(element, rank, count, reduction=None):
    rng = np.random.default_rng(100 + rank)
    dtype = NUMPY[element]
    if reduction == R.PRODUCT:
        raw = rng.choice([1, 2, -1] if np.dtype(dtype).kind in "if" or dtype is ml_dtypes.bfloat16
                         else [1, 2, 3], count)
    else:
        raw = rng.integers(0, 50, count)
    return raw.astype(dtype)


def _storage(values, element):
    return values.view(np.uint16) if element == E.BFLOAT_16 else values


def _reference(reduction, arrays, element):
    if element == E.BFLOAT_16:
        arrays = [a.astype(np.float32) for a in arrays]
    if reduction in (R.MINIMUM, R.MAXIMUM):
        fn = np.minimum if reduction == R.MINIMUM else np.maximum
    else:
        fn = np.multiply if reduction == R.PRODUCT else np.add
    out = arrays[0].copy()
    with np.errstate(over="ignore"):
        for a in arrays[1:]:
            out = fn(out, a)
    if reduction == R.AVERAGE:
        out = (out / len(arrays)).astype(out.dtype) if out.dtype.kind == "f" else \
            (np.sign(out) * (np.abs(out) // len(arrays))).astype(out.dtype)
    return out.astype(NUMPY[element])


def _collective(op, count, sends, recv_elems, params=None):
    n = len(sends)

    def body(r, channel):
        recv = np.zeros(recv_elems, op.dtype)
        channel.collective(op, params[r] if params else 0, _storage(sends[r], op.element_type), recv, count)
        return recv

    out, errors = _run_ranks(n, body)
    assert errors == [None] * n, errors
    return [o.view(np.uint16).view(ml_dtypes.bfloat16) if op.element_type == E.BFLOAT_16 else o for o in out]


@pytest.mark.parametrize("element", list(E), ids=lambda e: e.name.lower())
@pytest.mark.parametrize("reduction", [R.SUM, R.PRODUCT, R.MINIMUM, R.MAXIMUM, R.AVERAGE],
                         ids=lambda r: r.name.lower())
def test_all_reduce_every_reduction_and_element_type(element, reduction):
    for n in (3, 4):
        count = 7
        sends = [_values(element, r, count, reduction) for r in range(n)]
        out = _collective(CollectiveOp(K.ALL_REDUCE, reduction, element), count, sends, count)
        expected = _reference(reduction, sends, element)
        for got in out:
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", RANKS)
def test_every_kind_on_1_2_3_4_8_ranks(n):
    f32 = E.FLOAT_32
    # all_reduce: 13 elements, not divisible by 2, 3, 4 or 8.
    sends = [_values(f32, r, 13) for r in range(n)]
    for got in _collective(CollectiveOp(K.ALL_REDUCE, R.SUM, f32), 13, sends, 13):
        np.testing.assert_array_equal(got, _reference(R.SUM, sends, f32))
    # all_gather: each rank contributes 5 elements.
    sends = [_values(f32, r, 5) for r in range(n)]
    for got in _collective(CollectiveOp(K.ALL_GATHER, R.NONE, f32), 5, sends, 5 * n):
        np.testing.assert_array_equal(got, np.concatenate(sends))
    # reduce_scatter: rank r keeps block r (3 elements) of the sum.
    sends = [_values(f32, r, 3 * n) for r in range(n)]
    total = _reference(R.SUM, sends, f32)
    for r, got in enumerate(_collective(CollectiveOp(K.REDUCE_SCATTER, R.MAXIMUM, f32), 3, sends, 3)):
        np.testing.assert_array_equal(got, _reference(R.MAXIMUM, sends, f32)[3 * r:3 * r + 3])
    assert total.size == 3 * n
    # all_to_all: rank r receives block r of every rank's 2n elements.
    sends = [_values(f32, r, 2 * n) for r in range(n)]
    for r, got in enumerate(_collective(CollectiveOp(K.ALL_TO_ALL, R.NONE, f32), 2 * n, sends, 2 * n)):
        np.testing.assert_array_equal(got, np.concatenate([s[2 * r:2 * r + 2] for s in sends]))
    # send_recv: a ring shift; rank 0 receives nothing when n == 1 (zeros).
    sends = [_values(f32, r, 4) for r in range(n)]
    params = [((r - 1) % n) << 16 | ((r + 1) % n) if n > 1 else 0xFFFFFFFF for r in range(n)]
    for r, got in enumerate(_collective(CollectiveOp(K.SEND_RECV, R.NONE, f32), 4, sends, 4, params)):
        np.testing.assert_array_equal(got, sends[(r - 1) % n] if n > 1 else np.zeros(4, np.float32))


def test_mismatched_collectives_fail_on_every_rank_without_hanging():
    def body(r, channel):
        kind = K.ALL_REDUCE if r == 0 else K.ALL_GATHER
        channel.collective(CollectiveOp(kind, R.SUM if r == 0 else R.NONE, E.FLOAT_32), 0,
                           np.zeros(4, np.float32), np.zeros(8, np.float32), 4)

    _, errors = _run_ranks(2, body)
    assert all(isinstance(e, DeviceError) and "do not match" in str(e) for e in errors)


def test_abort_releases_waiting_ranks_and_the_next_epoch_works():
    world = LocalWorld(2)
    channel = world.provider(0).create_channel(None, None, -1, -1)
    op = CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32)
    errors = []

    def rank0():
        try:
            channel.collective(op, 0, np.ones(2, np.float32), np.zeros(2, np.float32), 2)
        except DeviceError as e:
            errors.append(e)

    t = threading.Thread(target=rank0)
    t.start()
    world.abort(DeviceError("rank 1 died"))
    t.join(30)
    assert not t.is_alive() and "rank 1 died" in str(errors[0])
    world.new_epoch()
    out, errs = _run_ranks_on(world, lambda r, ch: _sum(ch, r))
    assert errs == [None, None] and [list(o) for o in out] == [[1.0, 1.0], [1.0, 1.0]]


def _sum(channel, r):
    recv = np.zeros(2, np.float32)
    channel.collective(CollectiveOp(K.ALL_REDUCE, R.SUM, E.FLOAT_32), 0, np.full(2, r, np.float32), recv, 2)
    return recv


def _run_ranks_on(world, body):
    out, errors = [None] * world.count, [None] * world.count

    def run(r):
        try:
            out[r] = body(r, world.provider(r).create_channel(None, None, -1, -1))
        except Exception as e:
            errors[r] = e

    threads = [threading.Thread(target=run, args=(r,)) for r in range(world.count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out, errors


def test_waiting_ranks_poll_only_where_each_rank_can_have_a_core():
    """A rank that reaches a rendezvous before the last polls for up to SPIN_NS before it
    sleeps, where the world's ranks are no more than this process's cores (a poller sharing a
    core would delay a rank still computing); it sleeps at once otherwise."""
    from rt.runtime.hal.drivers._local_rendezvous import SPIN_NS, NativeWorld

    cores = len(os.sched_getaffinity(0))
    assert NativeWorld(1).spin_ns == SPIN_NS > 0
    assert NativeWorld(cores).spin_ns == SPIN_NS
    assert NativeWorld(cores + 1).spin_ns == 0
    assert NativeWorld(2, spin_ns=0).spin_ns == 0


@pytest.mark.parametrize("spin_ns", [0, 10**9])
def test_polling_and_sleeping_waits_give_the_same_results(spin_ns, monkeypatch):
    """Whether waiting ranks poll (here for up to 1 s, so they never sleep) or sleep at once,
    every rank gets the reduction, over many rendezvous in a row (the entries' reuse), and a
    rank that arrives long after the others still completes it."""
    import time

    from rt.runtime.hal.drivers import local_channel
    from rt.runtime.hal.drivers._local_rendezvous import NativeWorld

    monkeypatch.setattr(local_channel, "NativeWorld", lambda count: NativeWorld(count, spin_ns=spin_ns))

    def body(r, channel):
        sums = []
        for k in range(50):
            if r == 2 and k == 7:
                time.sleep(0.05)  # the others wait 50 ms for this rank
            sums.append(float(_sum(channel, r + k)[0]))
        return sums

    out, errors = _run_ranks(3, body)
    assert errors == [None] * 3
    assert out == [[float(3 * k + 3) for k in range(50)]] * 3


def test_split_groups_by_color_and_orders_by_key():
    def body(r, channel):
        sub = channel.split(r % 2, -r)
        return (sub.rank, sub.count, sub.group != channel.group)

    out, errors = _run_ranks(4, body)
    assert errors == [None] * 4
    assert out == [(1, 2, True), (1, 2, True), (0, 2, True), (0, 2, True)]


def test_bad_ops_and_sizes_are_named():
    with pytest.raises(InvalidArgumentError, match="kind 77"):
        CollectiveOp.unpack(77)
    with pytest.raises(InvalidArgumentError, match="all_reduce needs a reduction"):
        CollectiveOp.unpack(int(K.ALL_REDUCE) | int(E.FLOAT_32) << 16)
    _, errors = _run_ranks(3, lambda r, ch: ch.collective(CollectiveOp(K.ALL_TO_ALL, R.NONE, E.SINT_32), 0,
                                                          np.zeros(4, np.int32), np.zeros(4, np.int32), 4))
    assert all("multiple of the rank count" in str(e) for e in errors)


def test_collective_command_in_a_command_buffer():
    """The HAL path: command_buffer.collective recorded and executed by each rank's queue."""
    n = 3
    devices = [create_device("local-task://vmvx") for _ in range(n)]
    try:
        def body(r, channel):
            d = devices[r]
            x = np.arange(5, dtype=np.int32) * (r + 1)
            send, recv = d.allocator.allocate_from(x), d.allocator.allocate_buffer(5 * 4 * n)
            cb = d.create_command_buffer()
            cb.begin()
            cb.collective(channel, CollectiveOp(K.ALL_GATHER, R.NONE, E.SINT_32).pack(), 0, send, recv, 5)
            cb.end()
            d.queue_execute(cb).wait()
            return recv.host_bytes().view(np.int32).copy()

        out, errors = _run_ranks(n, body)
        assert errors == [None] * n
        expected = np.concatenate([np.arange(5, dtype=np.int32) * (r + 1) for r in range(n)])
        for got in out:
            np.testing.assert_array_equal(got, expected)
        d = devices[0]
        cb = d.create_command_buffer()
        cb.begin()
        channel = LocalWorld(2).provider(0).create_channel(d, None, -1, -1)
        small = d.allocator.allocate_buffer(8)
        with pytest.raises(InvalidArgumentError, match="recv buffer range of 8 bytes is too small"):
            cb.collective(channel, CollectiveOp(K.ALL_GATHER, R.NONE, E.SINT_32), 0, small, small, 2)
    finally:
        for d in devices:
            d.release()


def test_in_place_collectives_read_every_send_before_writing():
    """A receive range that is (or holds) the rank's send range: the result is what separate
    buffers give (the C rendezvous copies the sends aside first)."""
    n = 3
    sends = [np.arange(6, dtype=np.int32) * (r + 1) for r in range(n)]

    def all_reduce(r, channel):
        buf = sends[r].copy()
        channel.collective(CollectiveOp(K.ALL_REDUCE, R.SUM, E.SINT_32), 0, buf, buf, 6)
        return buf

    out, errors = _run_ranks(n, all_reduce)
    assert errors == [None] * n
    for got in out:
        np.testing.assert_array_equal(got, sum(sends))

    def all_gather(r, channel):
        recv = np.zeros(2 * n, np.int32)
        recv[2 * r:2 * r + 2] = sends[r][:2]
        channel.collective(CollectiveOp(K.ALL_GATHER, R.NONE, E.SINT_32), 0, recv[2 * r:2 * r + 2], recv, 2)
        return recv

    out, errors = _run_ranks(n, all_gather)
    assert errors == [None] * n
    for got in out:
        np.testing.assert_array_equal(got, np.concatenate([s[:2] for s in sends]))


@pytest.mark.parametrize("element", [E.SINT_8, E.UINT_16, E.SINT_32, E.UINT_64, E.FLOAT_32, E.FLOAT_64],
                         ids=lambda e: e.name.lower())
def test_wrapping_and_rounding_match_numpy(element):
    """Sums and products that overflow integers and round floats, computed in C, equal the
    reference computation's (numpy's) bit for bit, rank order included."""
    n, count = 4, 257
    dtype = np.dtype(NUMPY[element])
    rng = np.random.default_rng(7)
    if dtype.kind == "f":
        sends = [(rng.standard_normal(count) * 10.0 ** rng.integers(-8, 8, count)).astype(dtype)
                 for _ in range(n)]
    else:
        info = np.iinfo(dtype)
        sends = [rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True) for _ in range(n)]
    for reduction in (R.SUM, R.PRODUCT, R.MINIMUM, R.MAXIMUM):
        op = CollectiveOp(K.ALL_REDUCE, reduction, element)
        expected = compute(op, count, sends)[0]
        for got in _collective(op, count, sends, count):
            assert got.tobytes() == expected.tobytes(), reduction
