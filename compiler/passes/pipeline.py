"""The compiler pipeline in one place: every phase, its passes in order, and their options.

``PHASES`` is the only list of the pipeline. Each phase carries IREE's phase name (what
``--compile-to=`` / ``--compile-from=`` accept) and its passes; each pass entry is one line
``P(name, "package.module:Class", pass_field="options_field", ...)``: the registered pass name
(IREE's), where its class lives under ``rt.compiler.passes``, and which field of
:class:`CompileOptions` configures which option field of the pass. Registering a new pass is one
such line in the phase it belongs to (or in ``STANDALONE`` for passes that ``rt opt`` runs but
the default pipeline does not). The registry (``rt opt --pass``), ``--dump-after`` names,
phase stops and the driver all read this table; pass modules are imported only when built.

Phases (IREE's ``IREEVMPipelinePhase``, in order): input, abi, preprocessing (rt: the HAL
device assignment IREE runs right before it), global-optimization, dispatch-creation, flow,
stream, executable-sources, executable-configurations, executable-targets, hal, vm; ``end``
means the whole pipeline. ``compile_to=P`` stops after phase P (the output is the MLIR text
of the module), ``compile_from=P`` starts after phase P (the input is a dump of that point).

``cse`` runs at the points where IREE's pipelines run their cleanups (after the conversions to
stream and to hal): each conversion materializes its own constants, and without it a 160-layer
host function carries ~18 constants per layer into the VM.

Options: :class:`CompileOptions` (a frozen dataclass) holds everything the pipeline and the
pass manager take; passes are frozen dataclasses whose fields are their options (base.Pass).

Source followed: IREE ``compiler/src/iree/compiler/Pipelines/Pipelines.cpp``
(buildIREEVMTransformPassPipeline) and the per-phase ``Passes.cpp`` files.
"""
import dataclasses
import importlib
import os
import typing

from rt.compiler.passes.pass_manager import VERIFY_MODES, PassPipeline
from rt.runtime.errors import InvalidArgumentError


#: the values of IREE's ``--iree-input-type`` rt reads (torch and onnx are not read yet)
INPUT_TYPES = ("auto", "none", "stablehlo", "stablehlo_xla", "tosa")

#: the environment variable choosing when a compile verifies the IR (see ``pass_manager``)
VERIFY_ENV = "RT_VERIFY"


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """Options of one compilation.

    devices: tuple of ``DeviceSpec`` (``rt.compiler.targets.device_spec``; empty: the input's
    own device globals, else ``__device_0=llvm-cpu``). data_tiling: pack matmul operands
    (iree-dispatch-creation-set-encoding). verify_each: verify the IR after every pass
    (MLIR's ``-verify-each``); by default the input is verified when parsed and the output
    after the last pass (see ``pass_manager`` for ``RT_VERIFY``).
    dump_after: pass names (or ``"all"``) whose output IR is written to ``dump_dir`` as
    ``NN_<pass>.mlir``. compile_from / compile_to: phase names (see the module docstring).
    timing: print the time of every pass, nested by phase, to stderr (like ``--mlir-timing``).
    progress: show the running pass on stderr (None: only when stderr is a terminal).
    jobs: processes translating executables in parallel (0: one per available core).
    cache_dir: a directory where serialized executables are kept by content and reused by later
    compilations ("": no such directory).
    reassociate_fp_reductions: False keeps llvm-cpu float reductions in loop order.
    trace_dispatch_tensors: print every dispatch's input and output tensors at run time
    (iree-flow-inject-dispatch-tracing); trace_dispatch: only the dispatches whose export
    symbol contains this text (non-empty implies tracing).
    input_type: IREE's ``--iree-input-type``: ``auto`` (StableHLO/CHLO/TOSA ops found in the
    program are converted), ``stablehlo``/``stablehlo_xla``/``tosa`` (the same), ``none`` (the
    program must already be in rt's core dialects: a stablehlo or tosa op is an error).
    """

    devices: tuple = ()
    data_tiling: bool = True
    verify_each: bool = False
    dump_after: tuple = ()
    dump_dir: typing.Optional[str] = None
    compile_from: typing.Optional[str] = None
    compile_to: str = "end"
    timing: bool = False
    progress: typing.Optional[bool] = None
    jobs: int = 0
    cache_dir: str = ""
    reassociate_fp_reductions: bool = True
    trace_dispatch_tensors: bool = False
    trace_dispatch: str = ""
    input_type: str = "auto"

    @classmethod
    def from_dict(cls, options):
        """CompileOptions from a ``{field: value}`` dict (or None); InvalidArgumentError names
        unknown keys and bad phase names."""
        if isinstance(options, cls):
            return options
        options = dict(options or {})
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InvalidArgumentError(f"unknown compile option(s) {', '.join(unknown)}; known: {', '.join(known)}")
        dump_after = options.get("dump_after")
        if isinstance(dump_after, str):
            options["dump_after"] = (dump_after,) if dump_after else ()
        elif dump_after is not None:
            options["dump_after"] = tuple(dump_after)
        options = {k: v for k, v in options.items() if v is not None or k in ("dump_dir", "compile_from", "progress")}
        if "devices" in options:
            from rt.compiler.targets.device_spec import parse_device_specs

            options["devices"] = parse_device_specs(options["devices"] or None)
        result = cls(**options)
        result.check()
        return result

    def check(self):
        """InvalidArgumentError when a phase name is unknown or the phase range is empty."""
        names = phase_names()
        for key in ("compile_from", "compile_to"):
            value = getattr(self, key)
            if value is not None and value not in names:
                raise InvalidArgumentError(f"{key}={value!r} is not a compiler phase; phases: {', '.join(names)}")
        if self.compile_from is not None and names.index(self.compile_from) >= names.index(self.compile_to):
            raise InvalidArgumentError(f"compile_from={self.compile_from!r} must come before "
                                       f"compile_to={self.compile_to!r}; phases: {', '.join(names)}")
        if self.input_type not in INPUT_TYPES:
            raise InvalidArgumentError(f"input_type={self.input_type!r} is not supported by rt; input types: "
                                       f"{', '.join(INPUT_TYPES)} (torch and onnx are not read yet)")
        if self.jobs < 0:
            raise InvalidArgumentError(f"jobs={self.jobs} must be >= 0 (0: one per core)")


@dataclasses.dataclass(frozen=True)
class PassEntry:
    """One pass of the pipeline: its ``name``, its class as ``"package.module:Class"`` under
    ``rt.compiler.passes``, and ``options``: ``((pass field, CompileOptions field), ...)``."""

    name: str
    target: str
    options: tuple = ()

    def pass_class(self):
        module, cls = self.target.split(":")
        return getattr(importlib.import_module(f"rt.compiler.passes.{module}"), cls)

    def build(self, options=None):
        """The configured Pass instance for ``options`` (a CompileOptions; None: defaults)."""
        options = options or CompileOptions()
        return self.pass_class()(**{field: getattr(options, source) for field, source in self.options})


def P(name, target, **options):
    """A PassEntry: ``P("iree-x", "phase.file:XPass", pass_field="compile_options_field")``."""
    return PassEntry(name, target, tuple(options.items()))


@dataclasses.dataclass(frozen=True)
class Phase:
    """A named phase (IREE's phase names) and its passes in order."""

    name: str
    passes: tuple


PHASES = (
    Phase("input", (
        P("verify", "input.verify:VerifyPass"),
        P("rt-tosa-to-stablehlo", "input.tosa_to_stablehlo:TosaToStableHLOPass", input_type="input_type"),
        P("iree-stablehlo-legalize-shape-computations",
          "input.stablehlo_legalize_shape_computations:StableHLOLegalizeShapeComputationsPass"),
        P("iree-stablehlo-preprocessing-lower-complex", "input.lower_complex:LowerComplexPass"),
        P("iree-stablehlo-to-iree-input", "input.stablehlo_to_iree_input:StableHLOToIREEInputPass",
          input_type="input_type"),
        P("iree-import-ml-program", "input.import_ml_program:ImportMLProgramPass"),
        P("iree-flow-inject-tensor-tracing", "input.inject_tensor_tracing:InjectTensorTracingPass"),
        P("rt-unpack-packed-storage", "input.unpack_packed_storage:UnpackPackedStoragePass"),
        P("canonicalize", "input.canonicalize:CanonicalizePass"),
        P("cse", "common.cse:CSEPass"),
        P("iree-convert-shard-to-flow", "input.convert_shard_to_flow:ConvertShardToFlowPass"),
        P("rt-convert-hal-tensor-encodings", "input.convert_hal_tensor_encodings:ConvertHalTensorEncodingsPass"),
        P("convert-elementwise-to-linalg", "input.convert_elementwise_to_linalg:ConvertElementwiseToLinalgPass"),
        P("linalg-normalize-named-ops", "input.normalize_named_ops:NormalizeNamedOpsPass"),
        P("rt-insert-shape-checks", "input.insert_shape_checks:InsertShapeChecksPass"),
    )),
    Phase("abi", (
        P("iree-abi-wrap-entry-points", "abi.wrap_entry_points:WrapEntryPointsPass"),
    )),
    Phase("preprocessing", (
        P("iree-hal-assign-target-devices", "preprocessing.assign_target_devices:AssignTargetDevicesPass", targets="devices"),
        P("iree-hal-materialize-target-devices", "preprocessing.materialize_target_devices:MaterializeTargetDevicesPass"),
        P("iree-hal-resolve-device-promises", "preprocessing.resolve_device_promises:ResolveDevicePromisesPass"),
    )),
    Phase("global-optimization", (
        P("rt-decompose-linalg-ext", "global_optimization.decompose_linalg_ext:DecomposeLinalgExtPass"),
        P("iree-dispatch-creation-elementwise-op-fusion",
          "global_optimization.elementwise_op_fusion:ElementwiseOpFusionPass"),
        P("rt-global-opt-sink-row-division", "global_optimization.sink_row_division:SinkRowDivisionPass"),
        P("iree-dispatch-creation-set-encoding", "global_optimization.set_encoding:SetEncodingPass",
          data_tiling="data_tiling"),
        P("iree-dispatch-creation-propagate-encodings",
          "global_optimization.propagate_encodings:PropagateEncodingsPass"),
        P("iree-util-hoist-into-globals", "global_optimization.hoist_into_globals:HoistIntoGlobalsPass"),
    )),
    Phase("dispatch-creation", (
        P("iree-dispatch-creation-bubble-up-expand-shapes",
          "dispatch_creation.bubble_up_expand_shapes:BubbleUpExpandShapesPass"),
        P("iree-flow-convert-to-flow", "dispatch_creation.convert_to_flow:ConvertToFlowPass"),
        P("iree-dispatch-creation-form-dispatch-regions",
          "dispatch_creation.form_dispatch_regions:FormDispatchRegionsPass"),
        P("iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
          "dispatch_creation.convert_dispatch_regions_to_workgroups:ConvertDispatchRegionsToWorkgroupsPass"),
    )),
    Phase("flow", (
        P("iree-flow-outline-dispatch-regions", "flow.outline_dispatch_regions:OutlineDispatchRegionsPass"),
        P("iree-flow-deduplicate-executables", "flow.deduplicate_executables:DeduplicateExecutablesPass"),
        P("iree-flow-inject-dispatch-tracing", "flow.inject_dispatch_tracing:InjectDispatchTracingPass",
          enabled="trace_dispatch_tensors", symbol="trace_dispatch"),
    )),
    Phase("stream", (
        P("iree-stream-verify-input", "stream.verify_input:VerifyInputPass"),
        P("iree-stream-outline-constants", "stream.outline_constants:OutlineConstantsPass"),
        P("iree-stream-convert-to-stream", "stream.convert_to_stream:ConvertToStreamPass"),
        P("iree-stream-specialize-encodings", "stream.specialize_encodings:SpecializeEncodingsPass"),
        P("iree-stream-encode-host-tensors", "stream.encode_host_tensors:EncodeHostTensorsPass"),
        P("cse", "common.cse:CSEPass"),
        P("iree-stream-encode-device-tensors", "stream.encode_device_tensors:EncodeDeviceTensorsPass"),
        P("iree-stream-materialize-builtins", "stream.materialize_builtins:MaterializeBuiltinsPass"),
        P("iree-stream-materialize-copy-on-write", "stream.materialize_copy_on_write:MaterializeCopyOnWritePass"),
        P("iree-stream-elide-async-copies", "stream.elide_async_copies:ElideAsyncCopiesPass"),
        P("iree-stream-refine-usage", "stream.refine_usage:RefineUsagePass"),
        P("iree-stream-schedule-execution", "stream.schedule_execution:ScheduleExecutionPass"),
        P("iree-stream-schedule-concurrency", "stream.schedule_concurrency:ScheduleConcurrencyPass"),
        P("iree-stream-propagate-timepoints", "stream.propagate_timepoints:PropagateTimepointsPass"),
        P("iree-stream-schedule-allocation", "stream.schedule_allocation:ScheduleAllocationPass"),
        P("iree-stream-pack-constants", "stream.pack_constants:PackConstantsPass"),
        P("iree-stream-layout-slices", "stream.layout_slices:LayoutSlicesPass"),
        P("iree-stream-elide-timepoints", "stream.elide_timepoints:ElideTimepointsPass"),
        P("iree-stream-fuse-dispatch-bindings", "stream.fuse_dispatch_bindings:FuseDispatchBindingsPass"),
        P("iree-stream-pack-dispatch-operands", "stream.pack_dispatch_operands:PackDispatchOperandsPass"),
        P("iree-stream-fold-uniform-operands", "stream.fold_uniform_operands:FoldUniformOperandsPass"),
        P("iree-stream-annotate-dispatch-arguments", "stream.annotate_dispatch_arguments:AnnotateDispatchArgumentsPass"),
        P("cse", "common.cse:CSEPass"),
    )),
    Phase("executable-sources", (
        P("iree-hal-materialize-interfaces", "executable_sources.materialize_interfaces:MaterializeInterfacesPass"),
    )),
    Phase("executable-configurations", ()),
    Phase("executable-targets", (
        P("iree-hal-translate-executables", "executable_targets.translate_executables:TranslateExecutablesPass",
          jobs="jobs", cache_dir="cache_dir",
          reassociate_fp_reductions="reassociate_fp_reductions"),
    )),
    Phase("hal", (
        P("iree-hal-convert-to-hal", "hal.convert_to_hal:ConvertToHALPass"),
        P("cse", "common.cse:CSEPass"),
        P("iree-hal-serialize-executables", "hal.serialize_executables:SerializeExecutablesPass"),
    )),
    Phase("vm", (
        P("iree-vm-conversion", "vm.conversion:ConversionPass"),
    )),
)

#: passes ``rt opt --pass=NAME`` runs that the default pipeline does not (codegen rewrites run
#: inside iree-hal-translate-executables, on each dispatch function)
STANDALONE = (
    P("iree-codegen-decompose-softmax", "executable_targets.decompose_softmax:DecomposeSoftmaxPass"),
    P("rt-codegen-expand-arith-math", "executable_targets.expand_arith_math:ExpandArithMathPass"),
)


def phase_names():
    """Every phase name in order, then ``"end"``."""
    return [phase.name for phase in PHASES] + ["end"]


def entries(compile_from=None, compile_to="end"):
    """The PassEntry list of the phases after ``compile_from`` up to and including
    ``compile_to`` (defaults: the whole pipeline)."""
    names = phase_names()
    start = 0 if compile_from is None else names.index(compile_from) + 1
    stop = names.index(compile_to) + 1
    return [entry for phase in PHASES[start:stop] for entry in phase.passes]


def pass_names():
    """The names of the whole default pipeline, in order (a pass may run more than once)."""
    return [entry.name for entry in entries()]


def phase_of(name):
    """The first phase that runs the pass ``name`` (None for a standalone pass)."""
    for phase in PHASES:
        if any(entry.name == name for entry in phase.passes):
            return phase.name
    return None


def all_entries():
    """Every registered PassEntry: the pipeline's and the standalone ones."""
    return [entry for phase in PHASES for entry in phase.passes] + list(STANDALONE)


def build_passes(options=None, until=None):
    """The configured Pass instances for ``options`` (CompileOptions or a dict), honouring its
    compile_from/compile_to; ``until``: stop after the pass of that name (tests run prefixes)."""
    options = CompileOptions.from_dict(options)
    passes = []
    for entry in entries(options.compile_from, options.compile_to):
        passes.append(entry.build(options))
        if entry.name == until:
            return passes
    if until is not None:
        raise InvalidArgumentError(f"until={until!r} is not a pass of the pipeline; pipeline: {', '.join(pass_names())}")
    return passes


def pass_manager(options=None, timing=None):
    """A PassPipeline running ``build_passes(options)`` with the options' dumps, verification
    and progress; ``timing``: an ``instrumentation.Timing`` recording each pass under its phase.

    Verification: after every pass with ``verify_each``; else as the environment variable
    ``RT_VERIFY`` says (``each``: every pass, ``phase``: the last pass of every phase, ``end``:
    the last pass only, the default; the test suite sets ``phase`` so that a pass that breaks
    the IR fails at its phase). InvalidArgumentError for another ``RT_VERIFY`` value."""
    options = CompileOptions.from_dict(options)
    verify = "each" if options.verify_each else os.environ.get(VERIFY_ENV) or "end"
    if verify not in VERIFY_MODES:
        raise InvalidArgumentError(f"{VERIFY_ENV}={verify!r} in the environment; expected one of "
                                   f"{', '.join(VERIFY_MODES)}")
    passes = build_passes(options)
    names = phase_names()
    start = 0 if options.compile_from is None else names.index(options.compile_from) + 1
    phases = [phase.name for phase in PHASES[start:] for _ in phase.passes][:len(passes)]
    return PassPipeline(passes, dump_after=options.dump_after, dump_dir=options.dump_dir,
                        verify=verify, timing=timing, progress=options.progress,
                        phases=phases)
