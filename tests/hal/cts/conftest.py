"""The HAL conformance suite runs every test on each driver x device kind.

Each device gets its real executable loader plus the fake numpy loader, so dispatch semantics
(validation, ordering, failure propagation) are tested on every driver even where no
hand-built device executable is involved.
"""
import pytest

from rt.runtime import hal
from rt.runtime.errors import RtError

from fake_executables import FAKE_LOADER, make_fake_executable

DRIVERS = ("local-sync", "local-task")
KINDS = ("llvm-cpu", "vmvx")
PARAMS = [f"{d}://{k}" for d in DRIVERS for k in KINDS]


def open_device(uri, **params):
    """A device for ``uri`` with its real loader and the fake one; skip if unavailable."""
    kind = hal.parse_device_uri(uri)[1]
    try:
        real = hal.device_loader(kind)
    except RtError as error:
        pytest.skip(f"{kind} loader unavailable: {error}")
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return hal.create_device(uri + ("?" + query if query else ""), loaders=[real, FAKE_LOADER])


@pytest.fixture(params=PARAMS)
def device_uri(request):
    return request.param


@pytest.fixture
def device(device_uri):
    dev = open_device(device_uri)
    yield dev
    dev.release()


@pytest.fixture
def device_factory(device_uri):
    """Create extra devices of the same kind (released after the test)."""
    made = []

    def make(uri=None, **params):
        dev = open_device(uri or device_uri, **params)
        made.append(dev)
        return dev

    yield make
    for dev in made:
        dev.release()


@pytest.fixture
def executable(device):
    return make_fake_executable(device)
