import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pytest_xdist_auto_num_workers(config):
    """-n auto (pytest.ini): a worker a CPU, at most 4 (each holds up to 2 GB)."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else 1))


def pytest_configure(config):
    # under pytest-xdist (-n N): each worker on a CPU of its own, so that its torch and the runs it
    # starts take one thread each (devices.cpu_threads reads the affinity) rather than N workers
    # oversubscribing the cores
    worker = os.environ.get('PYTEST_XDIST_WORKER')
    if worker and hasattr(os, 'sched_setaffinity'):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[int(worker.removeprefix('gw')) % len(cpus)]})
    config.addinivalue_line(
        'markers', 'log_by_hand: the test writes or damages a log.jsonl itself, on purpose'
    )


def reject(constant):
    raise ValueError(f'{constant} is not JSON')


@pytest.fixture(autouse=True)
def strict_logs(request):
    """After every test: each log.jsonl under its tmp_path (what train.py and the experiments wrote
    there) parses line by line with a strict JSON parser, one object a line: no NaN, Infinity or
    half-written line."""
    yield
    folder = request.node.funcargs.get('tmp_path')
    if folder is None or request.node.get_closest_marker('log_by_hand'):
        return
    for log in Path(folder).rglob('log.jsonl'):
        for i, line in enumerate(log.read_bytes().decode().splitlines(), 1):
            assert isinstance(json.loads(line, parse_constant=reject), dict), f'{log} line {i}'
