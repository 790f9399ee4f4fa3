"""Counts every valid configuration of spaces/flat/gemm.space twice, in
one run on one machine: with python-constraint2 on the restrictions as
Kernel Tuner writes them (strings), and with `commute enumerate --count`.
Run by benches/flat_enumeration.sh, which installs python-constraint2."""

import statistics
import subprocess
import sys
import time

from constraint import Problem

# The values of spaces/flat/gemm.toml.
PARAMETERS = {
    "MWG": [16, 32, 64, 128],
    "NWG": [16, 32, 64, 128],
    "KWG": [16, 32],
    "MDIMC": [8, 16, 32],
    "NDIMC": [8, 16, 32],
    "MDIMA": [8, 16, 32],
    "NDIMB": [8, 16, 32],
    "KWI": [2, 8],
    "VWM": [1, 2, 4, 8],
    "VWN": [1, 2, 4, 8],
    "STRM": [0, 1],
    "STRN": [0, 1],
    "SA": [0, 1],
    "SB": [0, 1],
}

# Kernel Tuner's restrictions for this kernel, as strings.
RESTRICTIONS = [
    "KWG % KWI == 0",
    "MWG % (MDIMC * VWM) == 0",
    "NWG % (NDIMC * VWN) == 0",
    "MWG % (MDIMA * VWM) == 0",
    "NWG % (NDIMB * VWN) == 0",
    "KWG % ((MDIMC * NDIMC) / MDIMA) == 0",
    "KWG % ((MDIMC * NDIMC) / NDIMB) == 0",
    "not (MWG == 128 and NWG == 128 and MDIMC == 8 and NDIMC == 8)",
]


def python_constraint_count():
    problem = Problem()
    for name, values in PARAMETERS.items():
        problem.addVariable(name, values)
    problem.addConstraint(RESTRICTIONS)
    return len(problem.getSolutions())


def commute_count(binary):
    started = time.perf_counter()
    out = subprocess.run(
        [binary, "enumerate", "spaces/flat/gemm.space", "--host", "spaces/flat/gemm.toml", "--count"],
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    # stderr: "N leaves in S s (...)": from reading the space and host files
    # to the count, without starting the process.
    inside = float(out.stderr.split(" leaves in ")[1].split(" s")[0])
    return int(out.stdout.strip()), wall, inside


def process_start(binary):
    """A process of commute that does nothing: what spawning one costs."""
    started = time.perf_counter()
    subprocess.run([binary, "--version"], check=True, capture_output=True)
    return time.perf_counter() - started


def main():
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    pc_times, commute_walls, commute_insides, starts = [], [], [], []
    pc_count = commute = None
    for _ in range(runs):
        started = time.perf_counter()
        pc_count = python_constraint_count()
        pc_times.append(time.perf_counter() - started)
        commute, wall, inside = commute_count(binary)
        commute_walls.append(wall)
        commute_insides.append(inside)
        starts.append(process_start(binary))
    print(f"valid configurations: python-constraint2 {pc_count}, commute {commute}")
    if pc_count != commute:
        print("COUNTS DIFFER")
        sys.exit(1)
    rows = [
        ("python-constraint2 getSolutions", pc_times),
        ("commute enumerate --count (process)", commute_walls),
        ("commute files read and counted (in process)", commute_insides),
        ("commute --version (process start alone)", starts),
    ]
    print(f"{'counter':40} {'min s':>10} {'median s':>10}")
    for name, times in rows:
        print(f"{name:40} {min(times):10.6f} {statistics.median(times):10.6f}")
    print(f"ratio (python-constraint2 / commute process), medians: "
          f"{statistics.median(pc_times) / statistics.median(commute_walls):.0f}x")
    print(f"ratio (python-constraint2 / commute count), medians: "
          f"{statistics.median(pc_times) / statistics.median(commute_insides):.0f}x")


if __name__ == "__main__":
    main()
