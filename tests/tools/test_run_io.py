"""``rt run`` inputs and outputs as iree-run-module 3.13 reads and writes them."""
import numpy as np

IDENTITY = ("--function=identity", "--input=2x4xf32=[1 2 3 4][5 6 7 8]")


def test_output_files_by_extension(rt_cli, modules, tmp_path):
    out = rt_cli("run", modules / "basic.vmfb", *IDENTITY, "--output=@y.bin", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout == "EXEC @identity\n", out.stderr
    assert (tmp_path / "y.bin").read_bytes() == np.arange(1, 9, dtype=np.float32).tobytes()
    rt_cli("run", modules / "basic.vmfb", *IDENTITY, "--output=@y.txt", cwd=tmp_path)  # raw too, as IREE 3.13
    assert (tmp_path / "y.txt").read_bytes() == np.arange(1, 9, dtype=np.float32).tobytes()
    rt_cli("run", modules / "basic.vmfb", *IDENTITY, "--output=@y.npy", cwd=tmp_path)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), np.arange(1, 9).reshape(2, 4))
    rt_cli("run", modules / "basic.vmfb", *IDENTITY, "--output=+y.bin", cwd=tmp_path)
    assert (tmp_path / "y.bin").read_bytes() == np.arange(1, 9, dtype=np.float32).tobytes() * 2


def test_scalar_outputs_to_files_and_dropped(rt_cli, modules, tmp_path):
    out = rt_cli("run", modules / "basic.vmfb", "--function=scale", "--input=2.5", "--input=7",
                 "--output=@s.bin", "--output=@i.txt", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout == "EXEC @scale\n", out.stderr
    assert (tmp_path / "s.bin").read_bytes() == np.float32(5).tobytes()
    assert (tmp_path / "i.txt").read_bytes() == np.int64(8).tobytes()
    out = rt_cli("run", modules / "basic.vmfb", "--function=scale", "--input=2.5", "--input=7",
                 "--output=", "--output=-")
    assert out.stdout == "EXEC @scale\nresult[1]: index=8\n"


def test_outputs_must_be_one_per_result(rt_cli, modules):
    out = rt_cli("run", modules / "basic.vmfb", "--function=scale", "--input=2.5", "--input=7", "--output=-")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == ("rt run: 1 --output flags but @scale returns 2 result(s); give one per result "
                          "('-' prints, an empty --output= drops)\n")


def test_npy_input_at_rereads_plus_continues(rt_cli, modules, tmp_path):
    with open(tmp_path / "a.npy", "wb") as f:
        np.save(f, np.float32([1, 2, 3, 4]))
        np.save(f, np.float32([10, 20, 30, 40]))
    out = rt_cli("run", modules / "add.vmfb", "--function=add", "--input=@a.npy", "--input=@a.npy", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=2 4 6 8\n"
    out = rt_cli("run", modules / "add.vmfb", "--function=add", "--input=@a.npy", "--input=+a.npy", cwd=tmp_path)
    assert out.stdout == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=11 22 33 44\n"


def test_raw_input_files_continue_with_plus(rt_cli, modules, tmp_path):
    np.float32([1, 2, 3, 4, 5, 6, 7, 8]).tofile(tmp_path / "x.bin")
    out = rt_cli("run", modules / "add.vmfb", "--function=add", "--input=4xf32=@x.bin", "--input=4xf32=+x.bin",
                 cwd=tmp_path)
    assert out.stdout == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=6 8 10 12\n", out.stderr


def test_output_max_element_count(rt_cli, modules):
    out = rt_cli("run", modules / "basic.vmfb", *IDENTITY, "--output_max_element_count=3")
    assert out.stdout == "EXEC @identity\nresult[0]: hal.buffer_view\n2x4xf32=[1 2 3...\n"


def test_output_paths_are_checked_before_the_run(rt_cli, modules, tmp_path):
    for flag, shown in (("--output=@no/such/y.npy", "--output=@no/such/y.npy"),
                        ("--trace=no/such/t.json", "--trace=no/such/t.json"),
                        ("--report=no/such/r.json", "--report=no/such/r.json")):
        out = rt_cli("run", modules / "basic.vmfb", *IDENTITY, flag, cwd=tmp_path)
        assert out.returncode == 1 and out.stdout == ""
        assert out.stderr == (f"rt run: {shown}: cannot write {flag.split('=@')[-1].split('=')[-1]!r}: "
                              f"folder {str(tmp_path / 'no/such')!r} does not exist\n")
    out = rt_cli("compile", "missing_input_is_not_reached.mlir", "-o", tmp_path, cwd=tmp_path)
    assert out.stderr == f"rt compile: -o {tmp_path}: {str(tmp_path)!r} is a folder; give a file path\n"
