"""Fixtures of the Python API tests: the hand-built modules of rt.testing, loaded once."""
import pytest

import rt
from rt import testing


@pytest.fixture(scope="module")
def basic():
    with rt.load(testing.basic_module()) as m:
        yield m


@pytest.fixture(scope="module")
def checks():
    with rt.load(testing.check_module()) as m:
        yield m


@pytest.fixture(scope="module")
def adder():
    with rt.load(testing.add_module()) as m:
        yield m
