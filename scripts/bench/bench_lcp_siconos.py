#!/usr/bin/python3
"""fivsim's Lemke against Siconos' Lemke, called from C and from Python, on one set of LCPs.

Runs the C++ driver (scripts/bench/lcp_peer_bench.cpp: fivsim cold and warm, Siconos through its C
linearComplementarity_driver), then solves the very same 10^5 one-step friction LCPs with
Siconos' Python interface (siconos.numerics.linearComplementarity_driver, the LCP objects built
before the clock starts), and prints every rate with the ratios. All on one core.

    FIVSIM_SETUP_PEERS=1 scripts/setup.sh          # Siconos C library and python3-siconos
    scripts/bench/bench_lcp_siconos.py [--build-dir build-bench] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PASSES = 3  # the Python side's time is the fastest of these passes over each size


def build_driver(build_dir):
    """Configures and builds fivsim_bench_lcp when it is missing; returns its path."""
    binary = os.path.join(build_dir, "fivsim_bench_lcp")
    if not os.path.exists(binary):
        subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                        "-DFIVSIM_BUILD_TESTS=OFF", "-DFIVSIM_BUILD_BENCH=ON"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 1),
                        "--target", "fivsim_bench_lcp"], check=True, stdout=subprocess.DEVNULL)
    return binary


def read_problems(path):
    """The driver's --dump file: float64 records n, A (row-major), b. Returns {n: [(A, b)]}."""
    data = np.fromfile(path, dtype=np.float64)
    out, at = {}, 0
    while at < data.size:
        n = int(data[at])
        A = data[at + 1:at + 1 + n * n].reshape(n, n)
        b = data[at + 1 + n * n:at + 1 + n * n + n]
        out.setdefault(n, []).append((A, b))
        at += 1 + n * n + n
    return out


def natural_residual(A, b, x):
    return float(np.max(np.abs(np.minimum(x, A @ x + b))))


def time_siconos_python(problems):
    """Best-of-PASSES seconds for the whole list, failures and the largest residual."""
    import siconos.numerics as sn
    lcps = [sn.LCP(np.ascontiguousarray(A), b.copy()) for A, b in problems]
    n = problems[0][1].size
    z = [np.zeros(n) for _ in problems]
    w = [np.zeros(n) for _ in problems]
    options = sn.SolverOptions(sn.SICONOS_LCP_LEMKE)
    driver = sn.linearComplementarity_driver
    best, infos = float("inf"), []
    for _ in range(PASSES):
        t0 = time.perf_counter()
        infos = [driver(lcp, zk, wk, options) for lcp, zk, wk in zip(lcps, z, w)]
        best = min(best, time.perf_counter() - t0)
    failures = sum(1 for i in infos if i != 0)
    residual = max(natural_residual(A, b, zk) for (A, b), zk in zip(problems, z))
    return best, failures, residual


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    parser.add_argument("--json", help="write every rate here")
    args = parser.parse_args()
    try:
        import siconos.numerics  # noqa: F401
    except ImportError:
        sys.exit("bench_lcp_siconos: python3-siconos is missing (FIVSIM_SETUP_PEERS=1 scripts/setup.sh)")

    binary = build_driver(args.build_dir)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        dump, report_path = os.path.join(tmp, "problems.bin"), os.path.join(tmp, "c.json")
        run = subprocess.run([binary, "--dump", dump, "--json", report_path], env=env, check=True,
                             capture_output=True, text=True)
        print(run.stdout, end="")
        with open(report_path) as f:
            report = json.load(f)
        problems = read_problems(dump)

    print("\nSiconos from Python (siconos.numerics.linearComplementarity_driver, LCP objects built "
          "beforehand), the same problems:")
    print(f"{'n':>3} {'count':>7} | {'fivsim cold':>12} {'fivsim warm':>12} | {'Sic. C':>10} "
          f"{'Sic. Python':>12} {'max resid':>9} | {'cold/Py':>8} {'warm/Py':>8}")
    total_py = 0.0
    for row in report["sizes"]:
        seconds, failures, residual = time_siconos_python(problems[row["n"]])
        total_py += seconds
        rate = row["count"] / seconds
        row.update(siconos_python_per_s=rate, siconos_python_max_residual=residual,
                   siconos_python_failures=failures)
        print(f"{row['n']:>3} {row['count']:>7} | {row['fivsim_cold_per_s']:>12.4g} "
              f"{row['fivsim_warm_per_s']:>12.4g} | {row['siconos_c_per_s']:>10.4g} {rate:>12.4g} "
              f"{residual:>9.2g} | {row['fivsim_cold_per_s'] / rate:>7.1f}x "
              f"{row['fivsim_warm_per_s'] / rate:>7.1f}x")
        if failures:
            print(f"Siconos (Python) failures: {failures}")
    report["siconos_python_per_s"] = report["total"] / total_py
    print(f"all {report['total']} LCPs (LCP/s): fivsim cold {report['fivsim_cold_per_s']:.4g}, "
          f"warm {report['fivsim_warm_per_s']:.4g}; Siconos C {report['siconos_c_per_s']:.4g}, "
          f"Python {report['siconos_python_per_s']:.4g}")
    c = report["siconos_c_per_s"]
    if c > 0:
        print(f"ratio to Siconos C:      cold {report['fivsim_cold_per_s'] / c:.1f}x, "
              f"warm {report['fivsim_warm_per_s'] / c:.1f}x")
    py = report["siconos_python_per_s"]
    print(f"ratio to Siconos Python: cold {report['fivsim_cold_per_s'] / py:.1f}x, "
          f"warm {report['fivsim_warm_per_s'] / py:.1f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
