"""Multi-device simulation: topologies, virtual time, deterministic runs, injected faults.

A layer over the HAL's public interfaces (device queue entry points, allocator statistics,
trace sinks): ``Simulation`` wraps real local devices (the topology's ``uri``s) in
``SimDevice``s whose queues run in virtual time. See docs/MULTI_DEVICE.md.

Modules: ``topology`` (the YAML schema and its loader), ``engine`` (the discrete-event core:
virtual clocks, links shared by their transfers), ``costs`` (roofline and transfer times of
commands), ``topology_dims`` / ``astra_sim`` (topologies declared by dimensions, ASTRA-sim
network files), ``collective_model`` (ring, tree, direct and halving-doubling as link
traffic), ``collective_plan`` (hierarchical collectives, the automatic choice, α–β predictions),
``collective_bench`` (one collective alone, for ``rt benchmark-collectives``), ``faults``
(``--inject`` specs), ``report`` (``--report=r.json``), ``chakra_trace`` with ``chakra_format``
(``--chakra-trace``: the run as Chakra execution traces), ``sim_device`` and ``simulation``;
``dispatch_classes`` (calibrated per-class kernel costs), ``host_costs`` (the host's cost of
a call and its cores), ``cores`` (kernels sharing the host's cores), ``link_table`` (a link's
measured time per message size), ``profile`` (dispatch profiles from a real run's trace), ``calibration`` with
``calibration_defaults``, ``calibration_programs`` and ``mpi_loopback`` (``rt calibrate``).
"""
