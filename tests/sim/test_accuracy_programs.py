"""The programs benchmarks/sim_accuracy.py times compute what they say (against numpy), so that
its error figures are about real work."""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import rt

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import sim_accuracy_programs as programs  # noqa: E402

URI = "local-task://llvm-cpu?threads=1"


def _spmd(text, inputs):
    with rt.load(rt.compile(text, devices=["llvm-cpu"]), ranks=len(inputs), devices=[URI]) as m:
        return m.f.spmd(inputs)


def _softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.slow
def test_the_tensor_parallel_transformer_layer_matches_numpy():
    text, _, inputs = programs.tp_transformer(2)
    x = inputs[0][0]
    attention = sum(_softmax((x @ wq) @ (x @ wk).T / np.sqrt(wq.shape[1])) @ (x @ wv) @ wo
                    for _, wq, wk, wv, wo, _, _ in inputs)
    y = attention + x
    want = sum(np.maximum(y @ w1, 0) @ w2 for *_, w1, w2 in inputs) + y
    for got in _spmd(text, inputs):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_pipeline_and_collectives_match_numpy():
    text, _, inputs = programs.pipeline(3)
    with rt.load(rt.compile(text, devices=["s0=llvm-cpu", "s1=llvm-cpu", "s2=llvm-cpu"]),
                 devices=[URI] * 3) as m:
        assert len(m.devices) == 3
        got = m.f(*inputs)
    want = inputs[0]
    for w in inputs[1:]:
        want = np.maximum(want @ w, 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    text, _, inputs = programs.collective("all_gather", 2, 64)
    for got in _spmd(text, inputs):
        np.testing.assert_array_equal(got, np.concatenate([np.full(16, 1.0), np.full(16, 2.0)]))
    text, _, inputs = programs.collective("all_reduce", 2, 64)
    for got in _spmd(text, inputs):
        np.testing.assert_array_equal(got, np.full(16, 3.0))


def test_the_mpi_cases_run_on_the_calibrated_one_thread_device():
    """The MPI worker's device runs a dispatch on one thread, as the calibrated topology's
    kernels; the default local-task device would give each of the 2 ranks every core (issue 23:
    4 compute threads on 2 cores made MPI tp_mlp 0.64 ms for real, 0.51 ms on this device)."""
    import sim_accuracy
    from rt.runtime.hal.drivers.local_task import MAX_THREADS

    assert sim_accuracy.MPI_LOAD == {"channel": "mpi", "devices": [URI]}
    calibrated, default = rt.hal.create_device(URI), rt.hal.create_device("local-task://llvm-cpu")
    try:
        assert calibrated.threads == 1
        assert default.threads == min(len(os.sched_getaffinity(0)), MAX_THREADS)
    finally:
        calibrated.release()
        default.release()


def test_saved_profiles_rebuild_from_their_samples_with_another_statistic(tmp_path):
    import sim_accuracy
    from rt.runtime.sim.profile import ProfileTable

    events = [{"ph": "X", "name": "f_dispatch_0_matmul_8x8x8_f32", "dur": us, "ts": 0,
               "args": {"workgroups": [1, 1, 1]}} for us in (10.0, 20.0, 30.0, 40.0, 100.0)]
    events.append({"ph": "X", "name": "EXEC @f", "dur": 500.0, "ts": 0})  # not a dispatch
    saved, rebuilt = tmp_path / "round0", tmp_path / "again"
    saved.mkdir()
    sim_accuracy.profile_file(events, saved, "tp mlp")
    key = ("f_dispatch_0_matmul_8x8x8_f32", (1, 1, 1))
    assert ProfileTable.load(saved / "tp_mlp.profile.json").times == {key: 20.0}
    sim_accuracy.reprofile(saved, rebuilt, "median")
    assert ProfileTable.load(rebuilt / "tp_mlp.profile.json").times == {key: 30.0}
    (saved / "tp_mlp.dispatches.json").unlink()
    with pytest.raises(SystemExit, match="saved without its dispatch samples"):
        sim_accuracy.reprofile(saved, tmp_path / "third", "min")


def test_an_mpi_case_is_predicted_turn_by_turn_from_that_turns_calibration(tmp_path):
    """The MPI job's turns pair the cases with the calibration taken moments apart: a case's
    prediction is the median of its predictions on each turn's MPI link and call cost, its real
    time the median of its turns (sim_accuracy.MpiTurns). A job whose MPI loopback switched
    from its fast to its slow mode partway keeps both sides in the same modes."""
    import sim_accuracy
    from rt.runtime.sim.calibration import Calibration
    from rt.runtime.sim.dispatch_classes import ClassCost, KernelCosts

    sizes = [3 << 12, 3 << 16, 3 << 20]
    fast = {"nop": 20.0, **{str(s): 30.0 + s / 3000 for s in sizes}}
    slow = {"nop": 20.0, **{str(s): 90.0 + s / 1000 for s in sizes}}
    name = "MPI all_reduce 64 KiB 2 ranks"
    turns = sim_accuracy.MpiTurns({name: [60.0, 60.0, 150.0, 150.0, 150.0]},
                                  [fast, fast, slow, slow, slow], sizes)
    assert turns.real() == {name: 150.0}
    (fast_link, fast_call), *_, (slow_link, slow_call) = turns.fits()
    assert (fast_call, slow_call) == (20.0, 20.0)
    assert slow_link.bandwidth_gbps == pytest.approx(fast_link.bandwidth_gbps / 3, rel=1e-6)
    kernels = KernelCosts((("matmul", ClassCost(2.0, 100.0)), ("copy", ClassCost(1.0, 20.0))))
    cal = Calibration([URI, URI], {URI: kernels}, collective_link=fast_link, copy_link=fast_link)
    cal.mpi_link, cal.mpi_call_us = turns.fit()
    builder = dict((n, b) for n, b, _, _ in sim_accuracy.MPI_CASES)[name]
    compiled = {name: sim_accuracy.compile_case(builder, "spmd", 2)}
    sim_accuracy.profile_file([], tmp_path, name)  # a collective alone: no dispatch to profile
    real, paired, _ = sim_accuracy.simulate_round(compiled, {2: cal}, turns.real(), tmp_path, mpi=turns)[name]
    alone = []
    for link, call in ((fast_link, fast_call), (slow_link, slow_call)):
        cal.mpi_link, cal.mpi_call_us = link, call
        alone.append(sim_accuracy.simulated_us(*compiled[name], "spmd", cal.topology_dict("mpi")))
    # 3 of the 5 turns were slow: the median prediction is the slow mode's, as the real time
    assert real == 150.0 and paired == pytest.approx(alone[1]) and alone[0] < 0.6 * alone[1]


def test_a_cases_error_is_the_median_of_its_rounds_own_errors():
    """``summarize``: times are medians over the rounds; an error is the median of each round's
    (predicted - real) / real, each prediction judged against the real time of its own round;
    rounds without the case are left out, and a case no round ran gives None."""
    import sim_accuracy

    rounds = [{"c": (83.0, 115.0, 115.0)}, {"c": (133.0, 106.0, 100.0)}, {"c": (98.0, 106.0, 98.0)},
              {"c": (81.0, 84.0, 81.0)}, {"c": (83.0, 82.0, 83.0)}, {"other": (1.0, 1.0, 1.0)}]
    name, real, calibrated, profiled, calibrated_error, profiled_error, count = \
        sim_accuracy.summarize("c", rounds)
    assert (name, real, calibrated, profiled, count) == ("c", 83.0, 106.0, 98.0, 5)
    assert calibrated_error == pytest.approx(84.0 / 81.0 - 1)  # the rounds: +39, -20, +8, +4, -1%
    assert profiled_error == pytest.approx(0.0)
    assert sim_accuracy.summarize("missing", rounds) is None
