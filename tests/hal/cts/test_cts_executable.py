"""CTS: executable variant selection and bad executables."""
import pytest

from rt.runtime.errors import ModuleFormatError, NotFoundError

from fake_executables import FAKE_DATA, FAKE_FORMAT
from conftest import PARAMS, open_device


def test_prefers_the_variant_using_most_host_features(device):
    variants = [
        (FAKE_FORMAT, FAKE_DATA, {"cpu_features": ""}),
        (FAKE_FORMAT, FAKE_DATA, {"cpu_features": "+avx2,+fma,-avx512f"}),
        (FAKE_FORMAT, FAKE_DATA, {"cpu_features": "+nonexistent,+a,+b,+c"}),
        ("other-format", b"", {"cpu_features": "+a,+b,+c,+d"}),
    ]
    index, loader = device.executable_cache.select_variant(variants)
    assert (index, loader.name) == (1, "fake")
    assert device.prepare_executable(variants).format == FAKE_FORMAT


def test_no_fitting_variant_lists_each_reason(device):
    variants = [("spirv-fb", b"", {}), (FAKE_FORMAT, FAKE_DATA, {"cpu_features": "+nonexistent"})]
    with pytest.raises(NotFoundError) as info:
        device.prepare_executable(variants)
    text = str(info.value)
    assert f"no executable variant can run on {device.label}" in text
    assert "variant 0 (spirv-fb): format 'spirv-fb' is not loadable" in text and FAKE_FORMAT in text
    assert "variant 1 (fake-numpy): fake: requires CPU features +nonexistent which this host lacks" in text


def test_malformed_executable_data(device):
    with pytest.raises(ModuleFormatError, match=r"fake loader: expected"):
        device.create_executable(FAKE_FORMAT, b"garbage")


def test_device_query(device):
    format = device.loaders[0].formats[0]
    assert device.query_i64("hal.executable.format", format) == (1, 1)
    assert device.query_i64("hal.executable.format", "spirv-fb") == (1, 0)
    assert device.query_i64("hal.device.id", "local*") == (1, 1)
    assert device.query_i64("hal.device.id", "cuda") == (1, 0)
    assert device.query_i64("hal.dispatch", "concurrency") == (1, device.threads)
    assert device.query_i64("nope", "nope") == (0, 0)


@pytest.mark.parametrize("uri", [u for u in PARAMS if u.endswith("llvm-cpu")])
def test_missing_cpu_features_on_llvm_cpu(uri):
    """CPU features only constrain llvm-cpu variants, so this runs on llvm-cpu devices."""
    device = open_device(uri)
    from rt.devices.llvm_cpu.cpu_features import host_cpu_features, known_cpu_features
    absent = sorted(known_cpu_features() - host_cpu_features())
    if not absent:
        pytest.skip("this host has every CPU feature LLVM knows")
    variant = ("llvm-cpu-object-x86_64", b"\x7fELF", {"cpu_features": f"+{absent[0]}"})
    with pytest.raises(NotFoundError, match=rf"requires CPU features \+{absent[0]} which this host lacks"):
        device.prepare_executable([variant])
    device.release()


def test_wrong_format_for_the_device(device):
    other = {"llvm-cpu": "vmvx-bytecode", "vmvx": "llvm-cpu-object-x86_64"}[device.device_name]
    with pytest.raises(NotFoundError, match=rf"format '{other}' is not loadable on {device.label}"):
        device.create_executable(other, b"\x00" * 16)

