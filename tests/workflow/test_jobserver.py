"""The run's job server (dplab.workflow.jobserver) against a job run in its own process: the same exit status, output,
working folder and environment; a failing job's traceback; a cancelled client's job killed; a server that cannot
serve leaving the job to run where it is. The workflow's rows with and without the server are compared end to end
by tests/workflow/test_pipeline.py (its second quick run has ``job_server: false``)."""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from dplab.workflow import jobserver

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not jobserver.available(), reason="the job server needs fork and pidfd_open")

#: A stand-in for a script job: Snakemake's preamble defines ``snakemake``, then the script delegates.
SCRIPT = """
import os, sys, time
from types import SimpleNamespace
snakemake = SimpleNamespace(rule="demo", wildcards={{"shard": "3"}}, log=[{log!r}], config={{"work": {work!r}}})
from dplab.workflow import jobserver
jobserver.CONNECT_WAIT = 0.5
jobserver.delegate()
print("pid", os.getpid(), "cwd", os.getcwd(), "env", os.environ.get("DEMO"), "argv", sys.argv[1:], flush=True)
print("to stderr", file=sys.stderr, flush=True)
{body}
"""


@pytest.fixture()
def server(tmp_path):
    """A server with a light preload (``json``), serving on a socket in ``tmp_path``; stopped after the test."""
    address = str(tmp_path / "socket")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "dplab.workflow.jobserver", address, "json"], env=env)
    deadline = time.monotonic() + 30
    while not os.path.exists(address):
        assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
        time.sleep(0.02)
    yield address
    process.terminate()
    process.wait(timeout=20)


def script(tmp_path: Path, body: str = "") -> Path:
    path = tmp_path / "job.py"
    text = SCRIPT.format(log=str(tmp_path / "job.log"), work=str(tmp_path / "work"), body=textwrap.dedent(body))
    path.write_text(text)
    (tmp_path / "job.log").write_text("")
    return path


def run(path: Path, address: str | None, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "DEMO": "value", "PYTHONPATH": str(ROOT / "src")}
    env.pop(jobserver.SOCKET, None)
    if address:
        env[jobserver.SOCKET] = address
    return subprocess.run(
        [sys.executable, str(path), "argument"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, **kwargs
    )


def test_a_job_run_by_the_server_behaves_as_in_its_own_process(server, tmp_path):
    path = script(tmp_path, "sys.exit(3)")
    (tmp_path / "elsewhere").mkdir()
    own = run(path, None, tmp_path / "elsewhere")
    served = run(path, server, tmp_path / "elsewhere")
    assert own.returncode == served.returncode == 3
    own_pid, served_pid = (int(result.stdout.split()[1]) for result in (own, served))
    assert served.stdout.split()[2:] == own.stdout.split()[2:]  # cwd, environment, arguments
    assert f"cwd {tmp_path / 'elsewhere'} env value argv ['argument']" in served.stdout
    assert served.stderr == own.stderr == "to stderr\n"
    assert served_pid != own_pid
    usage = json.loads((tmp_path / "work" / "usage" / "demo" / "3.json").read_text())
    assert usage["returncode"] == 3 and usage["rule"] == "demo" and usage["wildcards"] == {"shard": "3"}
    assert usage["cpu_user_s"] >= 0 and usage["max_rss_mb"] > 1
    assert "job server: the job ran" in (tmp_path / "job.log").read_text()


def test_the_job_is_forked_by_the_server_not_run_by_its_client(server, tmp_path):
    """The job's parent is its manager (a child of the server), not the client, which only waits."""
    path = script(tmp_path, "print('parent', os.getppid(), flush=True)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), jobserver.SOCKET: server}
    client = subprocess.Popen([sys.executable, str(path)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    output, _ = client.communicate(timeout=60)
    assert client.returncode == 0
    job, parent = int(output.split()[1]), int(output.split("parent ")[1].split()[0])
    assert client.pid not in (job, parent)


def test_a_failing_job_reports_its_traceback_and_status(server, tmp_path):
    path = script(tmp_path, "raise ValueError('the job failed')")
    served = run(path, server, tmp_path)
    assert served.returncode == 1
    assert "ValueError: the job failed" in served.stderr and "Traceback" in served.stderr


def test_a_cancelled_client_has_its_job_killed(server, tmp_path):
    marker = tmp_path / "job.pid"
    path = script(tmp_path, f"open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(120)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), jobserver.SOCKET: server}
    client = subprocess.Popen([sys.executable, str(path)], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline, "the job did not start"
        time.sleep(0.05)
    job = int(marker.read_text())
    client.send_signal(signal.SIGTERM)
    client.wait(timeout=10)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{job}").exists() and "zombie" not in Path(f"/proc/{job}/status").read_text():
        assert time.monotonic() < deadline, "the cancelled job still runs"
        time.sleep(0.05)


def test_without_a_reachable_server_the_job_runs_in_its_own_process(tmp_path):
    path = script(tmp_path, "sys.exit(5)")
    result = run(path, str(tmp_path / "no-server"), tmp_path)
    assert result.returncode == 5
    assert "unreachable: the job runs in its own process" in result.stderr
    assert not (tmp_path / "work" / "usage").exists()


def test_a_server_refuses_a_job_of_another_python(server):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(server)
    with connection:
        request = {
            "python": "/another/python",
            "argv": ["x.py"],
            "cwd": "/",
            "env": {},
            "path": [],
            "streams": [0, 1, 2],
        }
        jobserver._send(connection, request, fds=[0, 1, 2])
        assert "is not the server's" in jobserver._receive(connection)["refused"]


@pytest.mark.parametrize(
    ("workflow", "config", "reason"),
    [
        (SimpleNamespace(local_exec=True, is_main_process=True), {"job_server": False}, "job_server is false"),
        (SimpleNamespace(local_exec=False, is_main_process=True), {}, "another executor"),
        (SimpleNamespace(local_exec=True, is_main_process=False), {}, "another executor"),
        (
            SimpleNamespace(
                local_exec=True, is_main_process=True, deployment_settings=SimpleNamespace(deployment_method={"conda"})
            ),
            {},
            "deployed software environment (conda)",
        ),
    ],
)
def test_runs_that_cannot_use_the_server_say_why(workflow, config, reason):
    assert reason in jobserver._why_not(workflow, config)


def test_a_local_run_uses_the_server():
    workflow = SimpleNamespace(
        local_exec=True, is_main_process=True, deployment_settings=SimpleNamespace(deployment_method=set())
    )
    assert jobserver._why_not(workflow, {"job_server": True}) is None


def test_usage_records_are_named_by_rule_and_wildcards(tmp_path):
    assert jobserver.usage_path(tmp_path, "all", {}) == tmp_path / "usage" / "all.json"
    assert jobserver.usage_path(tmp_path, "r", {"a": "1", "b": "x"}) == tmp_path / "usage" / "r" / "1-x.json"


def test_a_client_without_standard_input_gets_dev_null_in_its_job(server, tmp_path):
    path = script(tmp_path, "print('stdin', repr(sys.stdin.read()), flush=True)")
    served = run(path, server, tmp_path, stdin=subprocess.DEVNULL)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), jobserver.SOCKET: server}
    closed = subprocess.run(
        [sys.executable, "-c", f"import os, runpy; os.close(0); runpy.run_path({str(path)!r}, run_name='__main__')"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode == closed.returncode == 0, closed.stderr
    assert "stdin ''" in served.stdout and "stdin ''" in closed.stdout


def test_a_job_killed_by_a_signal_exits_as_a_shell_reports_it(server, tmp_path):
    path = script(tmp_path, "os.kill(os.getpid(), 9)")
    assert run(path, server, tmp_path).returncode == 128 + 9


def test_the_server_preloads_the_code_of_every_study():
    """The jobs of every study find their compute, plot and claims modules already imported in the server."""
    import importlib.util

    modules = jobserver.study_code_modules()
    for study in ("contraction", "generalization", "preprocessing", "purification"):
        assert f"dplab.studies.{study}.claims" in modules
        assert any(name.startswith(f"dplab.studies.{study}.") and "plot" in name for name in modules)
    assert all(importlib.util.find_spec(name) is not None for name in modules)
