"""The run's job server: every script job of a local run is forked from one warm process, so that the heavy imports
(numpy, pandas, scipy, torch, matplotlib, Snakemake's script support, the studies) are paid once per run instead of
once per job. The model stays one rule, one job and one process per artifact; only the process's start is shared.

How a job runs (``workflow/scripts/*.py``; each calls :func:`delegate` right after Snakemake's preamble):

1. Snakemake starts the script as usual (``python .snakemake/scripts/tmpXXXX.<script>.py``: its preamble, then the
   script). When the controller started a server (:func:`start`, from the Snakefile's ``onstart``), the environment
   variable :data:`SOCKET` names its Unix socket, and :func:`delegate` sends the server the script's path, arguments,
   working folder, environment and ``sys.path``, and passes it its standard input, output and error (file
   descriptors, ``SCM_RIGHTS``).
2. The server forks a *manager* per job; the manager forks the *job*, which takes the descriptors, folder and
   environment, runs the very same script file (preamble included) as ``__main__`` and exits with its status.
3. The manager waits for the job (``os.wait4``: exit status, CPU time, peak memory) and sends the result back;
   :func:`delegate` writes the job's CPU time and peak memory to its log, and to
   ``<work>/usage/<rule>[/<wildcards>].json`` (Snakemake's benchmark files time the waiting client: their wall time
   ``s`` is the job's, their ``cpu_time`` and ``max_rss`` are not), then exits with the job's status.

A job killed with its client (Snakemake cancelling a run) is killed by its manager. Without a reachable server
(a cluster job on another machine, ``job_server: false``, a run through a conda environment or a container, an
operating system without ``fork`` and ``pidfd_open``), :func:`delegate` returns and the script runs in its own
process, as it always did; the rows are the same either way (tests/workflow/test_jobserver.py).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

__all__ = [
    "SOCKET",
    "IN_JOB",
    "PRELOAD",
    "available",
    "delegate",
    "start",
    "stop",
    "serve",
    "study_code_modules",
    "usage_path",
]

#: Environment variable naming the run's server socket (set by :func:`start`, read by :func:`delegate`).
SOCKET = "DPLAB_JOB_SERVER"
#: Environment variable set inside a job forked by the server (its :func:`delegate` then returns at once).
IN_JOB = "DPLAB_JOB_SERVER_JOB"
#: What the server imports before it serves: the packages a job would otherwise import itself (and, with these,
#: every study's code: :func:`study_code_modules`).
PRELOAD = (
    "numpy",
    "pandas",
    "scipy.special",
    "scipy.stats",
    "scipy.optimize",
    "scipy.integrate",
    "torch",
    "matplotlib.pyplot",
    "mpmath",
    "tqdm",
    "dp_accounting",
    "snakemake.iocontainers",
    "snakemake.logging",
    "dplab.workflow.helpers",
    "dplab.workflow.registry",
    "dplab.report.io",
    "dplab.report.tables",
    "dplab.report.style",
)
#: How long a client waits for the socket of a server that is still starting (seconds).
CONNECT_WAIT = 30.0
#: How long a cancelled job has between SIGTERM and SIGKILL (seconds).
GRACE = 5.0
_HEADER = struct.Struct("!Q")


def study_code_modules() -> tuple[str, ...]:
    """Every module a study's jobs run (each artifact's compute and plot modules, each study's claims module), for
    the server to import once; the study packages are those of :mod:`dplab.studies`."""
    import pkgutil

    import dplab.studies
    from dplab.workflow.registry import load_study, module_of

    modules: list[str] = []
    for info in pkgutil.iter_modules(dplab.studies.__path__):
        if info.ispkg:
            study = load_study(info.name)
            modules.append(module_of(study.claims))
            for artifact in study.artifacts:
                modules += [*artifact.compute_modules(), *artifact.plot_modules()]
    return tuple(dict.fromkeys(modules))


def available() -> bool:
    """Whether this system can run the server: ``fork``, Unix sockets with descriptor passing, ``pidfd_open``."""
    return all(hasattr(os, name) for name in ("fork", "pidfd_open", "wait4")) and hasattr(socket, "send_fds")


# ---- client -------------------------------------------------------------------------------------------------------


def usage_path(work: str | os.PathLike[str], rule: str, wildcards: dict[str, str]) -> Path:
    """``<work>/usage/<rule>.json``, or ``<work>/usage/<rule>/<v1>-<v2>....json`` for a job with wildcards."""
    folder = Path(work) / "usage"
    if not wildcards:
        return folder / f"{rule}.json"
    return folder / rule / ("-".join(str(value) for value in wildcards.values()) + ".json")


def delegate() -> None:
    """Run this script job in the run's job server and exit with its status; return when there is no server to use
    (the script then runs here). Call it first in a script, before its own imports: the ``snakemake`` object of
    Snakemake's preamble is read from ``__main__``."""
    address = os.environ.get(SOCKET)
    if not address or os.environ.get(IN_JOB):
        return
    snakemake = sys.modules["__main__"].snakemake
    streams = [fd for fd in (0, 1, 2) if _is_open(fd)]  # before the socket, which may take a closed one's number
    connection = _connect(address)
    if connection is None:
        print(f"dplab job server at {address} unreachable: the job runs in its own process", file=sys.stderr)
        return
    with connection:
        request = {
            "python": sys.executable,
            "argv": sys.argv,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "path": sys.path,
            "streams": streams,
        }
        _send(connection, request, fds=streams)
        result = _receive(connection)
    if result.get("refused"):
        print(f"dplab job server: {result['refused']}; the job runs in its own process", file=sys.stderr)
        return
    _record_usage(snakemake, result)
    code = result["returncode"]
    sys.exit(code if code >= 0 else 128 - code)  # killed by signal k: 128 + k, as a shell reports it


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _connect(address: str) -> socket.socket | None:
    """A connection to the server; waits up to :data:`CONNECT_WAIT` for a server still binding its socket."""
    deadline = time.monotonic() + CONNECT_WAIT
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(address)
            return connection
        except (FileNotFoundError, ConnectionRefusedError):
            connection.close()
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        except OSError:
            connection.close()
            return None


def _record_usage(snakemake: Any, result: dict[str, Any]) -> None:
    """The job's CPU time and peak memory, measured by its manager: a line at the end of the job's log and a JSON
    record under ``<work>/usage/`` (see the module docstring)."""
    usage = {key: result[key] for key in ("cpu_user_s", "cpu_system_s", "max_rss_mb", "wall_s", "returncode")}
    usage["rule"] = snakemake.rule
    usage["wildcards"] = dict(snakemake.wildcards)
    if snakemake.log:
        with open(snakemake.log[0], "a", encoding="utf-8") as log:
            log.write(
                f"job server: the job ran {usage['wall_s']:.2f} s, CPU {usage['cpu_user_s']:.2f} s user + "
                f"{usage['cpu_system_s']:.2f} s system, peak memory {usage['max_rss_mb']:.0f} MB, "
                f"exit status {usage['returncode']}\n"
            )
    work = snakemake.config.get("work") if isinstance(snakemake.config, dict) else None
    if work:
        from dplab.report.io import write_text

        write_text(json.dumps(usage, sort_keys=True) + "\n", usage_path(work, snakemake.rule, usage["wildcards"]))


# ---- wire format --------------------------------------------------------------------------------------------------


def _send(connection: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    payload = json.dumps(message).encode()
    header = _HEADER.pack(len(payload))
    if fds:
        socket.send_fds(connection, [header], fds)
    else:
        connection.sendall(header)
    connection.sendall(payload)


def _receive_exactly(connection: socket.socket, size: int, start: bytes = b"") -> bytes:
    data = bytearray(start)
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the job server's connection closed mid-message")
        data += chunk
    return bytes(data)


def _receive(connection: socket.socket, fds: int = 0) -> Any:
    """A message (and, with ``fds``, the descriptors sent with it: ``(message, [fd, ...])``)."""
    if fds:
        header, received, _, _ = socket.recv_fds(connection, _HEADER.size, fds)
        header = _receive_exactly(connection, _HEADER.size, header)
    else:
        header, received = _receive_exactly(connection, _HEADER.size), []
    (size,) = _HEADER.unpack(header)
    message = json.loads(_receive_exactly(connection, size))
    return (message, list(received)) if fds else message


# ---- server -------------------------------------------------------------------------------------------------------


def serve(address: str, preload: tuple[str, ...] | None = None) -> None:
    """Bind ``address``, import ``preload`` (by default :data:`PRELOAD` and :func:`study_code_modules`), then fork a
    manager per connection until the parent process exits or the server is sent SIGTERM. Single-threaded: nothing
    runs beside the accept loop when it forks."""
    import importlib
    import signal

    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)  # clients that connect during the imports below wait in the backlog
    started = time.monotonic()
    if preload is None:
        preload = PRELOAD + study_code_modules()
    for name in preload:
        importlib.import_module(name)
    print(f"preloaded {len(preload)} modules in {time.monotonic() - started:.2f} s", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listener.settimeout(1.0)
    try:
        while os.getppid() == parent:  # a server outliving its run would serve nobody
            _reap()
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            if os.fork() == 0:
                listener.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _manage(connection)
            connection.close()
    finally:
        listener.close()
        _reap()  # managers still running keep serving their clients (and are then reaped by init)


def _reap() -> None:
    """Wait for the managers that have finished: waited children add their CPU time to the server's, so that
    ``time snakemake ...`` counts every job."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _manage(connection: socket.socket) -> None:
    """A manager: receive one job, fork it, wait for it (killing it if its client goes away), report, exit."""
    code = 0
    try:
        connection.settimeout(None)
        request, fds = _receive(connection, fds=3)
        if len(fds) != len(request.get("streams", ())):
            raise ValueError(f"a job request named streams {request.get('streams')} but passed {len(fds)} descriptors")
        if request["python"] != sys.executable:
            _send(connection, {"refused": f"the job's Python {request['python']} is not the server's {sys.executable}"})
            return
        started = time.monotonic()
        job = os.fork()
        if job == 0:
            connection.close()
            _run_job(request, fds)
        for fd in fds:
            os.close(fd)
        status, usage = _wait(job, connection)
        _send(
            connection,
            {
                "returncode": os.waitstatus_to_exitcode(status),
                "cpu_user_s": usage.ru_utime,
                "cpu_system_s": usage.ru_stime,
                "max_rss_mb": usage.ru_maxrss / 1024,
                "wall_s": time.monotonic() - started,
            },
        )
    except BaseException:  # noqa: BLE001 - a manager never returns into the server's loop
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def _wait(job: int, connection: socket.socket) -> tuple[int, Any]:
    """The job's wait status and resource usage; a client that disconnects first (its job cancelled) has the job
    terminated (SIGTERM, then SIGKILL after :data:`GRACE` seconds)."""
    import selectors
    import signal

    pidfd = os.pidfd_open(job)
    with selectors.DefaultSelector() as selector:
        selector.register(pidfd, selectors.EVENT_READ, "job")
        selector.register(connection, selectors.EVENT_READ, "client")
        events = {key.data for key, _ in selector.select()}
    if "job" not in events:
        os.kill(job, signal.SIGTERM)
        with selectors.DefaultSelector() as selector:
            selector.register(pidfd, selectors.EVENT_READ)
            if not selector.select(GRACE):
                os.kill(job, signal.SIGKILL)
    os.close(pidfd)
    _, status, usage = os.wait4(job, 0)
    return status, usage


def _run_job(request: dict[str, Any], fds: list[int]) -> None:
    """The job: the client's descriptors, folder, environment, arguments and path; its script as ``__main__``."""
    import runpy
    import traceback

    code = 0
    try:
        received = dict(zip(request["streams"], fds))
        for target in (0, 1, 2):
            fd = received.get(target)
            if fd is None:
                fd = os.open(os.devnull, os.O_RDWR)
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ[IN_JOB] = "1"
        sys.argv = list(request["argv"])
        sys.path[:] = request["path"]
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if not isinstance(done.code, int | None):
            print(done.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - the job's traceback goes to its stderr, as in its own process
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed log cannot be flushed
                pass
        os._exit(code)


# ---- the controller's side ----------------------------------------------------------------------------------------

_SERVER: dict[str, Any] = {}


def start(workflow: Any, config: dict[str, Any]) -> str | None:
    """Start the run's server from the Snakefile's ``onstart`` and point the jobs at it (:data:`SOCKET`); returns
    why not (a sentence) when this run does not use one: ``job_server: false``, an executor other than the local
    one, a software deployment method (jobs in a conda environment or a container run another Python), or a system
    without :func:`available`."""
    import subprocess
    import tempfile

    reason = _why_not(workflow, config)
    if reason:
        os.environ.pop(SOCKET, None)
        return reason
    folder = tempfile.mkdtemp(prefix="dplab-jobs-")
    address = os.path.join(folder, "socket")
    log_path = Path(config["work"]) / "logs" / "job_server.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    source = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "dplab.workflow.jobserver", address],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    _SERVER.update(process=process, folder=folder)
    os.environ[SOCKET] = address
    return None


def _why_not(workflow: Any, config: dict[str, Any]) -> str | None:
    if not config.get("job_server", True):
        return "job_server is false"
    if not available():
        return "this system lacks fork, pidfd_open or descriptor passing"
    if not getattr(workflow, "local_exec", True) or not getattr(workflow, "is_main_process", True):
        return "jobs run through another executor"
    deployment = getattr(getattr(workflow, "deployment_settings", None), "deployment_method", None)
    if deployment:
        return "jobs run in a deployed software environment (" + ", ".join(sorted(map(str, deployment))) + ")"
    return None


def stop() -> None:
    """Stop the run's server (Snakefile ``onsuccess`` and ``onerror``); jobs still running finish."""
    import shutil
    import subprocess

    process = _SERVER.pop("process", None)
    if process is not None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a server that does not stop is killed
            process.kill()
        shutil.rmtree(_SERVER.pop("folder"), ignore_errors=True)
    os.environ.pop(SOCKET, None)


if __name__ == "__main__":  # python -m dplab.workflow.jobserver SOCKET [MODULE ...] (default: serve's)
    serve(sys.argv[1], tuple(sys.argv[2:]) or None)
