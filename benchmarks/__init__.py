"""Side-by-side benchmark of this engine against karpathy's micrograd 0.1.0 (issue 5).

    python -m benchmarks.install_reference   # once: micrograd 0.1.0 into benchmarks/.micrograd-0.1.0
    python -m benchmarks.run                 # table on stdout, JSON in benchmarks/results/latest.json
    python -m benchmarks.run --tiny          # every workload for a moment: proves the harness works

Modules: ``suite`` (engines, workloads, rows, targets: where a row is added),
``run`` (the driver: one subprocess per row and repetition, rows alternating),
``report`` (summary, table, JSON, machine description), ``install_reference``;
run inside the workers, as top-level modules of this folder: ``worker``,
``workloads`` (written once against micrograd 0.1.0's API), ``numpy_floor``,
``moons`` (data and initial weights).
"""
