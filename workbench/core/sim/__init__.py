"""Playing games: the reference loop, seeds, the runner and its workers, sweeps, streams, stopping, output folders.

Everything that turns (game, parameters, agents, seeds) into result frames, and the plumbing that keeps a run
safe: chunks, workers and Dask, a Parquet store, progress with rate and ETA, Stop, one writer per output folder.
Imports the root modules (``errors``, ``lazy``, ``rng``) and ``model``; nothing above.
"""
