"""Catalogue entries of the size-grid extracts bundled under ``data/external`` (:mod:`workbench.io.catalogue`).

Each entry: name -> (file under ``data/external``, title, description, source, licence); the
catalogue registers them as bundled datasets read by :func:`workbench.io.size_grids.read_size_grids`.
"""

from __future__ import annotations

__all__ = ["EXTERNAL_SIZE_GRIDS"]

#: Size-grid extracts bundled under data/external (workbench.io.size_grids tables: one application on one
#: machine at several problem sizes and allocations): name -> (file, title, description, source, licence)
EXTERNAL_SIZE_GRIDS = {
    "lanl-size-grids": (
        "lanl+benchmarks/size_grids.csv",
        "LANL ATS-5 benchmarks on Crossroads: Branson, AMG2023, Parthenon-VIBE, MLMD, MiniEM, SPARTA over "
        "cores/nodes x problem size",
        "131 published runs in 11 grids of LANL's ATS-5 benchmark documentation, one row per (grid, allocation, "
        "size): strong scaling over 8-112 cores or ranks of one node at 2-3 sizes each: Branson on Crossroads and "
        "on Rocinante HBM (10M, 66M, 200M photons), MLMD (LAMMPS + HIPNN; 4544, 18176 atoms), MiniEM (768k, "
        "2592k, 4116k cells), SPARTA (15, 35, 55 particles per cell: 107M-393M particles); Branson on 32/64/96 "
        "Rocinante nodes at 7 photon counts (200M-8000M); weak-scaling lines of Branson (32-96 nodes), AMG2023 "
        "problems 1 and 2 (32-2048 nodes), Parthenon-VIBE (2-4096 nodes) and SPARTA (1-2048 nodes). Time: "
        "measured seconds where the outputs print them (AMG setup + solve, VIBE walltime, SPARTA loop time; "
        "SPARTA on one node per time step), else derived as work / FOM where the documentation defines FOM = "
        "work / time with the work known (Branson photons / FOM = transport time; MLMD atoms x 10000 steps / "
        "FOM; MiniEM cells / FOM = solver seconds per time step): read time_source. frame: a size-grid table "
        "(workbench.io.size_grids; time_unit s or s/step) plus scaling (strong/weak), size_unit, time_source (how "
        "the time was obtained), fom, fom_unit; one source (lanl/benchmarks) for leave-one-source-out. Tables "
        "whose runtime cannot be derived (AMG2023 and VIBE single-node strong scaling: the FOM's work count is "
        "not published), UMT (one size) and single-GPU sweeps are listed in the README.",
        "GitHub lanl/benchmarks at 7e0fdf9f (doc/sphinx/{01_branson,02_amg/scaling/output,03_vibe/scaling/output,"
        "05_mlmd,07_miniem,08_sparta}; data/external/lanl+benchmarks/README.md, build_size_grids.py)",
        "BSD-3-Clause",
    ),
    "cloud-size-grids": (
        "converged-computing+performance-study/size_grids.csv",
        "AMG2023 weak scaling on AWS, Azure and Google Cloud (CPU and GPU): 3 per-process sizes x 4 GPU counts on "
        "Google Compute Engine, one size x 3-4 cluster sizes elsewhere",
        "271 real runs of AMG2023 (hypre's algebraic-multigrid proxy: PCG with BoomerAMG on a 7-point Laplacian, "
        "-problem 2) in 11 grids, one per cloud environment: every MPI process owns a fixed block, so the "
        "problem grows with the allocation (weak scaling). Grid amg2023-google-compute-engine-gpu (n1-standard-32 "
        "VMs with 8 V100, one rank per GPU): blocks 128x128x128, 256x128x128 and 256x256x128 per process at "
        "n = 32, 64, 128, 256 GPUs (256x128x128 not at 128), 5 runs per cell: a process x size grid. Ten more "
        "grids (AWS ParallelCluster, EKS; Azure CycleCloud, AKS; Google Compute Engine, GKE; CPU clusters in "
        "nodes 32-256, GPU clusters in gpus 32-256) each run one block, 256x256x128, at 3-4 allocations: "
        "weak-scaling lines. size = cells per process (size_scope per-process; the whole problem = size x "
        "processes); time = AMG's PCG setup + solve wall-clock time (s; setup_s, solve_s and iterations are "
        "columns too). frame: a size-grid table (workbench.io.size_grids: grid, app, machine, n, n_unit, "
        "size_name, size, size_scope, time, time_unit, run, path, processes, nodes, setup_s, solve_s, iterations). "
        "Noisy and retrograde (GKE CPU: 78 s on 64 nodes, 205 s on 128); Azure GPU at 256 GPUs stops at 100 "
        "iterations; on Google Compute Engine GPU the 256x256x128 block ran in a second container build.",
        "GitHub converged-computing/performance-study at 6f3df687 (experiments/*/*/*/size*/results/"
        "{amg2023,amg2023-large}/*.out; data/external/converged-computing+performance-study/README.md, "
        "build_size_grids.py)",
        "MIT",
    ),
    "gromacs-alaska-size-grids": (
        "ukri-excalibur+excalibur-tests/size_grids.csv",
        "GROMACS at 3 system sizes (70k, 1.4M, 3M atoms) x 1-16 nodes on a small OpenStack cluster (AlaSKA), "
        "InfiniBand and RoCE",
        "139 real runs of GROMACS 2016.4 (HECBioSim benchmarks, mdrun -noconfout, one MPI rank per core) in 6 "
        "process x size grids: systems of 69,866, 1,403,180 and 2,997,924 atoms (HECBioSim 61k, 1400k, 3000k) on "
        "n = 1, 2, 4, 8, 16 nodes of AlaSKA (StackHPC's OpenHPC Slurm cluster on OpenStack, Dell R630, 2x Xeon "
        "E5-2683 v4, 32 ranks per node), over 100Gb InfiniBand and RoCE, in three measurement campaigns "
        "(gromacs-alaska-<ib|roce>-<c1|c2|c3>: c2 and c3 came after configuration changes and are slower, most for "
        "the small system on many nodes: 70k atoms on 16 nodes 3.3-3.8 ms/step in c1, 9.5-10.2 in c2 and c3; "
        "not exchangeable); 1-2 runs per cell. size = atoms (size_scope total); time = mdrun wall time / steps "
        "(s/step; the systems run 50,000 or 10,000 steps; wall_s, nsteps, ns_per_day are columns too). The 70k "
        "system slows down from 4-8 nodes on (retrograde); one c1 InfiniBand run of 1.4M atoms on 1 node is "
        "2.2x slower than its repeat. frame: a size-grid table (workbench.io.size_grids). The same jobs are the "
        "GROMACS curves of the mirror set excalibur-alaska: one source.",
        "GitHub ukri-excalibur/excalibur-tests at 37bbdc95 (perflogs/alaska/*/gromacs/*/*.log, "
        "output/alaska/*/gromacs/*/*-atoms.log; data/external/ukri-excalibur+excalibur-tests/README.md, "
        "build_size_grids.py)",
        "Apache-2.0",
    ),
    "oceananigans-size-grids": (
        "CliMA+Oceananigans.jl/size_grids.csv",
        "Oceananigans.jl shallow-water and nonhydrostatic models: weak and strong scaling tables on a Xeon "
        "E5-2683 v4 cluster (1-128 MPI ranks, 1-32 threads) and 1-3 V100 GPUs",
        "41 published measurements (the 2021 benchmark appendix of the Oceananigans.jl documentation) in 4 grids "
        "of seconds per time step (median of BenchmarkTools timings pooled over all ranks): "
        "oceananigans-shallow-water-mpi-cpu (a weak-scaling line of 4096 x 256R points on R = 1-128 MPI ranks "
        "and a strong-scaling line of 4096^2 points on 1-128 ranks, one rank per core: 8 sizes, 15 cells), "
        "oceananigans-nonhydrostatic-mpi-cpu (weak 128 x 128 x 16R on R = 1-128 ranks, strong 256^3 on 1-128: "
        "8 sizes, 15 cells; weak and strong meet at 4096^2 on 16 ranks and at 256^3 on 64 ranks, measured "
        "twice), oceananigans-shallow-water-threads-cpu (weak 8192 x 512T points on T = 1-32 Julia threads) and "
        "oceananigans-shallow-water-mpi-gpu (weak 4096 x 256R on R = 1-3 V100s). n = ranks (processes), threads "
        "or gpus; size = grid points (size_scope total); min_s, mean_s, max_s, samples are columns too. Weak "
        "efficiency falls to 12 % (nonhydrostatic, 128 ranks); one run per cell. frame: a size-grid table "
        "(workbench.io.size_grids).",
        "GitHub CliMA/Oceananigans.jl at cd518612 (docs/src/appendix/benchmarks.md; data/external/"
        "CliMA+Oceananigans.jl/README.md, build_size_grids.py)",
        "MIT",
    ),
    "pencilffts-size-grids": (
        "jipolanco+PencilFFTs.jl/size_grids.csv",
        "Distributed 3-D FFTs (PencilFFTs.jl, P3DFFT) at 512^3, 1024^3, 2048^3 points x 128-16384 MPI processes "
        "on Jean-Zay",
        "95 published measurements in 5 process x size grids (strong scaling at three sizes): a forward + backward "
        "real-to-complex 3-D FFT of N^3 points (N = 512, 1024, 2048) with a pencil decomposition on the Jean-Zay "
        "cluster of IDRIS (Intel Xeon Gold 6248, 40 cores per node, Omni-Path, Intel MPI 2019.9, 40 processes per "
        "node), August 2021: processes 128-8192 for 512^3, 256-8192 for 1024^3, 512-16384 for 2048^3 (all three "
        "sizes on 512-8192). Grids: PencilFFTs.jl v0.12 in four configurations (pencilffts-pi-jean-zay, the "
        "default: dimension permutations and Isend/Irecv; -pa: Alltoallv; -ni, -na: no permutations) and the "
        "Fortran P3DFFT v2.7.6 (p3dfft2-jean-zay). time = mean over 100 repetitions on rank 0 (s per transform "
        "pair, time_unit s/step); std_s, min_s, max_s, nodes (= ceil(processes / 40)) are columns too. Retrograde "
        "points (2048^3 on 16384 processes slower than on 8192 for pencilffts-pi and -ni; 512^3 for -ni on 2048 "
        "and -na on 4096 processes). frame: a size-grid table (workbench.io.size_grids).",
        "GitHub jipolanco/PencilFFTs.jl at 17bb9472 (benchmarks/clusters/idris.jean_zay/results/IntelMPI.2019.9/"
        "N*/*.dat; data/external/jipolanco+PencilFFTs.jl/README.md, build_size_grids.py)",
        "MIT",
    ),
}
