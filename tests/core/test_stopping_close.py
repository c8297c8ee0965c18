"""``core.sim.stopping.close``: a run's results are closed however the loop over them ends."""

from __future__ import annotations

from workbench.core.sim.stopping import close


def test_a_generator_left_early_is_closed_and_its_cleanup_runs():
    cleaned = []

    def results():
        try:
            yield from range(10)
        finally:
            cleaned.append(True)

    gen = results()
    assert next(gen) == 0
    close(gen)
    assert cleaned == [True]
    assert list(gen) == []  # nothing more comes from closed results
    close(gen)  # closing again (an except branch, then finally) is harmless
    assert cleaned == [True]


def test_results_without_close_are_left_as_they_are():
    chunks = [(0, "a"), (1, "b")]
    close(chunks)
    close(iter(chunks))
    assert chunks == [(0, "a"), (1, "b")]
