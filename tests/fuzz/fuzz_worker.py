"""Runs a batch of fuzz cases in this process: ``python fuzz_worker.py CORPUS FAMILY SEED START COUNT``.

Prints one JSON object: ``{"outcomes": {outcome: count}, "bugs": [[case, "Type: message"]]}``.
A bug is any exception that is not an ``rt.RtError`` (crashes and hangs are seen by the parent:
a non-zero exit or a timeout).
"""
import json
import os
import pickle
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "devices", "llvm_cpu")]


def main(argv):
    corpus_path, family, seed, start, count = argv[0], argv[1], argv[2], int(argv[3]), int(argv[4])
    warnings.simplefilter("ignore")
    from fuzz_families import make_case, run_case

    with open(corpus_path, "rb") as f:
        corpus = pickle.load(f)
    outcomes, bugs = {}, []
    for index in range(start, start + count):
        try:
            base, data = make_case(family, seed, index, corpus)
        except Exception as e:  # noqa: BLE001 - a broken mutator fails the suite too
            outcome = "bug"
            bugs.append([index, f"mutator {type(e).__name__}: {str(e)[:300]}"])
        else:
            try:
                outcome = run_case(family, base, data)
            except Exception as e:  # noqa: BLE001 - anything but an RtError is what the fuzzer hunts
                outcome = "bug"
                bugs.append([index, f"{type(e).__name__}: {str(e)[:300]}"])
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(json.dumps({"outcomes": outcomes, "bugs": bugs}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
