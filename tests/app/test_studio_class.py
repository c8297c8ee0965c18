"""A class on one server (issue 39, item 3): pages whose browser went away free their kernels, the page cap
follows memory, and every page's runs share one compute pool in fair turns.

The browser test kills a browser's processes (not its tabs: a closed window, a crashed browser) and
checks the server ends those pages' kernels within 30 s, so a full studio takes a new page again.  The
pool's tests run without a browser against a local Dask cluster, as the studio's kernels do: the frame
of every registered game equals the serial one, concurrent runs all finish in turns (a short run
started behind a long one finishes first), and Stop is honoured while a run waits in a busy pool.
The 30-page class is ``benchmarks/studio_class.py``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal
from studio_driver import until

from workbench.core.model import game_names, get_game
from workbench.core.sim import runner
from workbench.core.sim.runner import simulate

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


# -- the page cap follows memory --------------------------------------------------------------------------------
def test_the_default_page_cap_follows_the_servers_memory_and_is_stated():
    from workbench.app import serve

    gb = 2**30
    assert serve.default_max_pages(24 * gb) >= 30  # a class on a 24 GB machine
    assert serve.default_max_pages(24 * gb) == (24 * gb - serve.RESERVE) // serve.PAGE_BYTES
    assert serve.default_max_pages(48 * gb) > serve.default_max_pages(24 * gb)  # more memory, more pages
    assert serve.default_max_pages(2 * gb) == 1  # a small machine still serves one page
    assert serve.MAX_PAGES == serve.default_max_pages()  # this machine's default
    mb = serve.PAGE_BYTES // 2**20
    assert f"{mb} MB" in serve.__doc__ and f"{mb} MB" in _studio_section()  # the measured figure, said
    # --max-pages still overrides the default
    with pytest.raises(SystemExit):
        serve.main(["--max-pages", "0"])


def _studio_section() -> str:
    text = README.read_text()
    return text[text.index("## The studio (browser app)"):][:20000]


def test_a_page_waits_for_its_widgets_however_late_a_busy_server_sends_them():
    """Voilà's executor (nbclient) drops a cell's output that comes more than ``iopub_timeout`` s after the kernel's
    reply (4 by default): pages opened together beside a starting pool stayed blank.  The studio waits minutes."""
    from nbclient import NotebookClient

    from workbench.app.serve import IOPUB_WAIT, voila_config

    assert NotebookClient.iopub_timeout.default_value == 4  # what the studio overrides
    assert voila_config(Path("studio"), 8123).VoilaExecutor.iopub_timeout == IOPUB_WAIT >= 120


# -- a page whose browser went away frees its kernel ------------------------------------------------------------
def test_the_server_reaps_kernels_without_a_page_within_30_s_and_finds_a_lost_network():
    from workbench.app.serve import voila_config

    c = voila_config(Path("studio"), 8123)
    reaper = c.VoilaConfiguration.multi_kernel_manager_class
    assert reaper.__name__ == "StudioKernels"
    ping = c.Voila.tornado_settings
    reap_after = c.StudioKernels.reap_after
    # a lost network: the socket is closed after the ping timeout (checked at the next ping), then the reaper
    assert ping["ws_ping_timeout"] / 1000 + ping["ws_ping_interval"] / 1000 + reap_after + 2 <= 30
    assert 0 < reap_after <= 20
    assert voila_config(Path("studio"), 8123, reap_after=5).StudioKernels.reap_after == 5


def _reaper(monkeypatch, kernels: dict[str, int], pooled: set[str] | None = None):
    """The studio's kernel manager over fake kernels (id -> connected pages); the ids it ends are listed."""
    from workbench.app.serve import studio_kernels

    manager = studio_kernels()(reap_after=10)
    ended: list[str] = []

    async def shutdown(kernel_id, *args, **kwargs):
        ended.append(kernel_id)
        kernels.pop(kernel_id)

    monkeypatch.setattr(manager, "list_kernel_ids", lambda: list(kernels))
    monkeypatch.setattr(manager, "_kernel_connections", kernels)
    monkeypatch.setattr(manager, "pooled", lambda: set(pooled or ()))
    monkeypatch.setattr(manager, "shutdown_kernel", shutdown)
    return manager, ended


def test_the_reaper_ends_only_kernels_whose_page_is_gone(monkeypatch):
    from workbench.app.serve import NEVER_CONNECTED

    kernels = {"open": 1, "gone": 1, "loading": 0, "heated": 0}
    manager, ended = _reaper(monkeypatch, kernels, pooled={"heated"})

    def reap_at(seconds: float) -> list[str]:
        return asyncio.run(manager.reap(now=1000.0 + seconds))

    assert reap_at(0) == []  # everyone seen
    kernels["gone"] = 0  # its browser was killed: the socket closed
    assert reap_at(1) == []
    assert reap_at(9) == []  # not yet reap_after without a page
    assert reap_at(12) == ["gone"]
    assert reap_at(60) == []  # the open page stays, however idle; the loading one has time to connect
    assert reap_at(NEVER_CONNECTED + 1) == ["loading"]  # a page that never connected goes too, later
    assert reap_at(10_000) == [] and set(kernels) == {"open", "heated"}  # the pre-heated kernel waits for its page
    assert ended == ["gone", "loading"]


def test_a_page_gone_between_two_reaper_ticks_is_reaped_after_reap_after_not_the_loading_grace(monkeypatch):
    """A killed browser's last page may connect and go between two ticks of the reaper: the connection itself
    marks the kernel as having had a page, so it ends ``reap_after`` s after its socket closed (measured: 16
    killed windows took 118 s, the never-connected grace, before this)."""
    import time

    from workbench.app.serve import NEVER_CONNECTED

    kernels = {"late": 0}
    manager, ended = _reaper(monkeypatch, kernels)
    start = time.monotonic()
    assert asyncio.run(manager.reap(now=start)) == []  # a tick: the page is still loading
    manager.notify_connect("late")  # its socket opens ... and the browser is killed before the next tick
    manager.notify_disconnect("late")
    gone = time.monotonic()
    assert asyncio.run(manager.reap(now=gone + 5)) == []
    assert asyncio.run(manager.reap(now=gone + 11)) == ["late"] and 11 < NEVER_CONNECTED


def test_a_page_closed_while_it_loaded_frees_its_kernel_after_reap_after_not_the_loading_grace(monkeypatch):
    """A window closed while its page loaded sends no beacon and never connects; its page's request breaks off
    before the page is all sent (the page handler's ``on_connection_close``): the kernel goes ``reap_after`` s later,
    as a page gone, not after the NEVER_CONNECTED grace of a page still loading (a loaded machine's 30-page test saw
    a closed page's kernel live past 60 s).  A page still loading keeps the grace."""
    import time

    from workbench.app.serve import NEVER_CONNECTED

    kernels = {"closed": 0, "loading": 0, "open": 0}
    manager, ended = _reaper(monkeypatch, kernels)
    start = time.monotonic()
    assert asyncio.run(manager.reap(now=start)) == []  # every kernel handed to a page, none connected yet
    manager.notify_connect("open")
    kernels["open"] = 1
    manager.page_left("open")  # a connected page's request ending changes nothing: its socket says it is there
    manager.page_left("closed")  # its browser went away mid-page
    left = time.monotonic()
    assert asyncio.run(manager.reap(now=left + 9)) == []
    assert asyncio.run(manager.reap(now=left + 11)) == ["closed"]
    assert asyncio.run(manager.reap(now=start + NEVER_CONNECTED - 1)) == []  # still loading: the grace
    assert asyncio.run(manager.reap(now=start + NEVER_CONNECTED + 1)) == ["loading"]
    assert ended == ["closed", "loading"] and set(kernels) == {"open"}


def test_a_kernel_being_shut_down_is_listed_as_ending_until_its_shutdown_is_done(monkeypatch):
    """The page cap counts ``list_kernel_ids()`` less the kernels ending: a kernel stays listed until its shutdown
    is done, and a page opened meanwhile was refused as "studio full" with every page gone (seen on a fresh clone)."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    from workbench.app.serve import studio_kernels

    manager = studio_kernels()(reap_after=10)
    during: list[set[str]] = []

    async def slow_shutdown(self, kernel_id, *args, **kwargs):
        during.append(set(manager.ending))

    monkeypatch.setattr(AsyncMappingKernelManager, "shutdown_kernel", slow_shutdown)
    asyncio.run(manager.shutdown_kernel("k1", now=True))
    assert during == [{"k1"}] and manager.ending == set()


def test_the_page_handler_finds_its_kernel_in_the_config_it_streams():
    from workbench.app.serve import KERNEL_IN_PAGE

    html = ('<script id="jupyter-config-data" type="application/json">{"baseUrl": "/", '
            '"kernelId": "2f1c9a4e-7b1d-4c55-9a0e-3d2b8c7f6a10", "notebookPath": "studio.ipynb"}</script>')
    assert KERNEL_IN_PAGE.search(html)[1] == "2f1c9a4e-7b1d-4c55-9a0e-3d2b8c7f6a10"


# -- one compute pool, shared in fair turns ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def pool():
    """A local Dask cluster of two workers, named by WORKBENCH_SCHEDULER as the studio names its pool."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster:
        yield cluster.scheduler_address
    for client in runner._shared.values():
        client.close()
    runner._shared.clear()


@pytest.mark.xdist_group("dask")
@pytest.mark.parametrize("game", game_names())
def test_every_game_plays_the_same_frame_in_the_shared_pool(game, pool, monkeypatch):
    model = get_game(game)
    agents = ",".join(["random"] * model.players(model.make_config(model.resolve_params())))
    serial = simulate(game, 60, agents=agents, seed=11, progress=False, engine="reference", chunk_size=60)
    monkeypatch.setenv(runner.ENV_SCHEDULER, pool)
    shared = simulate(game, 60, agents=agents, seed=11, progress=False, engine="reference", chunk_size=7)
    assert_frame_equal(serial, shared)


@pytest.mark.xdist_group("dask")
def test_runs_sharing_the_pool_take_turns_and_a_stop_is_honoured_while_waiting(pool, monkeypatch):
    from workbench.core.errors import RunInterrupted
    from workbench.core.sim.stopping import watching

    monkeypatch.setenv(runner.ENV_SCHEDULER, pool)
    finished: dict[str, float] = {}
    errors: list[BaseException] = []

    def page(name: str, games: int, chunk: int) -> None:
        try:
            simulate("toy", games, seed=3, progress=False, engine="reference", chunk_size=chunk)
            finished[name] = time.perf_counter()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    long = [threading.Thread(target=page, args=(f"long{i}", 4000, 20)) for i in range(3)]
    for t in long:
        t.start()
    assert until(lambda: pool in runner._shared and any(runner._shared[pool].processing().values()), 120, every=0.05)
    short = threading.Thread(target=page, args=("short", 40, 20))  # a run started behind three long ones
    short.start()
    asked, stopped = threading.Event(), []

    def stoppable() -> None:  # a page's run, Stop pressed while the pool is busy with the others
        with watching(asked.is_set):
            try:
                simulate("toy", 4000, seed=5, progress=False, engine="reference", chunk_size=20,
                         should_stop=asked.is_set)
            except RunInterrupted as exc:
                stopped.append(exc)

    waiting = threading.Thread(target=stoppable)
    waiting.start()
    asked.set()
    waiting.join(60)
    assert not waiting.is_alive() and stopped and stopped[0].total == 4000 and stopped[0].done < 4000
    for t in [*long, short]:
        t.join(300)
    assert not errors, errors
    assert set(finished) == {"long0", "long1", "long2", "short"}  # every run finished
    assert finished["short"] < min(finished[f"long{i}"] for i in range(3))  # it never waited for the long ones


