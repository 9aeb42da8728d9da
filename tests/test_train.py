import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import numpy as np
import torch

import configurator
import devices
import sample
import train as train_module
from data.loader import batch_indices
from data.synthetic import ConfigError
import gpt2 as gpt2_module
from data import loader
from model import GPT, GPTConfig
from train import train

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(
    task='addition',
    digits=2,
    n_train=600,
    n_test=100,
    n_layer=1,
    n_embd=32,
    batch_size=16,
    max_iters=6,
    eval_interval=3,
    warmup_iters=2,
    progress=False,
)


def run(tmp_path, **kw):
    return train(
        {**TINY, 'out_dir': str(tmp_path / 'out'), 'data_dir': str(tmp_path / 'data'), **kw}
    )


def weights(tmp_path, run_name):
    return torch.load(tmp_path / 'out' / run_name / 'ckpt.pt', weights_only=True)['model']


def test_batches_are_a_function_of_seed_and_step():
    """Each epoch is a permutation: every example appears once per epoch, batches straddle
    epochs."""
    n, batch = 10, 4
    seen = torch.cat(
        [batch_indices(n, step, batch, seed=0) for step in range(5)]
    )  # 20 = two epochs
    assert sorted(seen[:10].tolist()) == list(range(10)) and sorted(seen[10:].tolist()) == list(
        range(10)
    )
    assert torch.equal(batch_indices(n, 3, batch, 0), batch_indices(n, 3, batch, 0))
    assert not torch.equal(torch.cat([batch_indices(n, s, batch, 1) for s in range(5)]), seen)


def test_run_writes_config_log_and_checkpoint(tmp_path):
    metrics = run(tmp_path, run_name='a')
    d = tmp_path / 'out' / 'a'
    cfg = json.loads((d / 'config.json').read_text())
    assert cfg['digits'] == 2 and cfg['variant'] == 'standard'
    log = [json.loads(line) for line in (d / 'log.jsonl').read_text().splitlines()]
    assert [e['step'] for e in log] == [3, 6]
    assert (
        log[-1]['val_acc'] == metrics['val_acc']
        and 0 <= metrics['val_exact'] <= metrics['val_acc'] <= 1
    )
    ckpt = torch.load(d / 'ckpt.pt', weights_only=True)
    assert ckpt['step'] == 6 and not list(d.glob('*.tmp'))


def test_every_variant_trains_through_train_py(tmp_path):
    for variant in ('frozen_qk', 'frozen_mlp', 'mixit', 'identity_query', 'random'):
        metrics = run(tmp_path, variant=variant, run_name=variant, max_iters=2, eval_interval=2)
        assert math.isfinite(metrics['val_loss'])
    # a model key overrides the variant's flags: standard + frozen_qk is frozen_qk
    a = run(tmp_path, variant='standard', frozen_qk=True, max_iters=2)
    b = run(tmp_path, variant='frozen_qk', run_name='f', max_iters=2)
    assert a['trainable_params'] == b['trainable_params'] and a['val_loss'] == b['val_loss']
    assert Path(a['run_dir']).name.startswith(
        'addition-standard,frozen_qk=True,'
    )  # not the standard run's folder


@pytest.mark.parametrize('variant, dtype', [('standard', 'float32'), ('mixit', 'bfloat16')])
def test_resume_is_exact(tmp_path, variant, dtype):
    """Interrupted at step 5 and resumed to 10 == run straight to 10 (dropout on, so its masks count
    too). In bfloat16 the fixed mixing matrices are cast once (model.fixed_to), and the checkpoint
    holds them cast."""
    common = dict(
        max_iters=10, lr_decay_iters=10, eval_interval=5, dropout=0.1, variant=variant, dtype=dtype
    )
    run(tmp_path, run_name='straight', **common)
    run(tmp_path, run_name='split', **{**common, 'max_iters': 5})
    train(
        dict(
            out_dir=str(tmp_path / 'out'),
            data_dir=str(tmp_path / 'data'),
            run_name='split',
            resume=True,
            max_iters=10,
        )
    )
    a, b = weights(tmp_path, 'straight'), weights(tmp_path, 'split')
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert all(a[k].dtype == getattr(torch, dtype) for k in a if k.endswith('.mix'))
    log = [
        json.loads(line)['step']
        for line in (tmp_path / 'out' / 'split' / 'log.jsonl').read_text().splitlines()
    ]
    assert log == [5, 10]


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.mark.skipif(sys.platform != 'linux', reason='torchrun with gloo is exercised on Linux')
@pytest.mark.parametrize('data', ['examples', 'tokens', 'two nodes'])
def test_ddp_two_processes_equal_one_process_with_accumulation(tmp_path, data):
    """Two processes compute what one computes with two micro-batches: the weights, the held-out
    numbers and the logged train loss (the mean over both processes).

    'two nodes' runs the README's two-node command, one process a node (RANK 0 and 1, each
    LOCAL_RANK 0), both on this machine."""
    keys = dict(
        TINY,
        out_dir=str(tmp_path / 'out'),
        data_dir=str(tmp_path / 'data'),
        gradient_accumulation_steps=2,
        max_iters=4,
        eval_interval=4,
        log_interval=4,
        device='cpu',
    )
    if (
        data == 'tokens'
    ):  # a text corpus: windows of a token stream, evaluation over contiguous windows
        from data import corpus

        (tmp_path / 'book.txt').write_text(
            'In the beginning was a tiny corpus, read in windows.\n' * 200
        )
        corpus.prepare('text', {'encoding': 'bytes'}, tmp_path / 'book.txt', tmp_path / 'data')
        keys = {k: v for k, v in keys.items() if k not in ('digits', 'n_train', 'n_test')}
        keys.update(task='text', encoding='bytes', block_size=32)
    train({**keys, 'run_name': 'single'})
    args = [f'--{k}={v}' for k, v in {**keys, 'run_name': 'ddp'}.items()]
    env = {**os.environ, 'OMP_NUM_THREADS': '1'}
    torchrun = [sys.executable, '-m', 'torch.distributed.run']
    if data == 'two nodes':
        nodes = [
            (
                f'--nnodes=2 --node_rank={i} --nproc_per_node=1 '
                f'--master_addr=127.0.0.1 --master_port={port}'
            ).split()
            for port in [free_port()]
            for i in (0, 1)
        ]
    else:
        nodes = [['--standalone', '--nproc_per_node=2']]
    procs = [
        subprocess.Popen(
            [*torchrun, *node, str(ROOT / 'train.py'), *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for node in nodes
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-3000:] for _, err in outs]
    assert 'after 4 steps' in outs[0][0], (
        'the run ends with its last line, then leaves (devices.leave)'
    )
    a, b = weights(tmp_path, 'single'), weights(tmp_path, 'ddp')
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=1e-5)
    la = json.loads((tmp_path / 'out' / 'single' / 'log.jsonl').read_text())
    lb = json.loads((tmp_path / 'out' / 'ddp' / 'log.jsonl').read_text())
    assert la['val_acc'] == pytest.approx(lb['val_acc']) and la['val_loss'] == pytest.approx(
        lb['val_loss'], abs=1e-5
    )
    assert la['train_loss'] == pytest.approx(lb['train_loss'], abs=1e-5), (
        'the mean over processes, not rank 0 alone'
    )
    assert ('val_exact' in la) == (data != 'tokens'), (
        'exact match where a task has answers, not on a corpus'
    )


def test_a_few_hundred_steps_solve_a_small_task(tmp_path):
    """Memorize a random table of 24 x 24 pairs (chance: 1/24) to 100% in 400 steps."""
    metrics = train(
        dict(
            task='memorization',
            size=24,
            batch_size=32,
            max_iters=400,
            eval_interval=400,
            progress=False,
            out_dir=str(tmp_path / 'out'),
            data_dir=str(tmp_path / 'data'),
        )
    )
    assert metrics['eval_split'] == 'train' and metrics['val_acc'] == 1.0, metrics


def test_non_finite_loss_stops_and_keeps_last_good_checkpoint(tmp_path):
    run(tmp_path, run_name='nan', max_iters=4, eval_interval=4)
    with pytest.raises(FloatingPointError, match='non-finite'):
        train(
            dict(
                out_dir=str(tmp_path / 'out'),
                data_dir=str(tmp_path / 'data'),
                run_name='nan',
                resume=True,
                max_iters=8,
                learning_rate=1e30,
                min_lr=1e30,
                log_interval=1,
            )
        )
    ckpt = torch.load(tmp_path / 'out' / 'nan' / 'ckpt.pt', weights_only=True)
    assert ckpt['step'] == 4 and all(torch.isfinite(v).all() for v in ckpt['model'].values())


@pytest.mark.parametrize(
    'bad, message',
    [
        (dict(lerning_rate=0.1), "did you mean 'learning_rate'"),
        (dict(variant='mixt'), "did you mean 'mixit'"),
        (dict(task='adition'), 'unknown task'),
        (dict(max_iters='ten'), 'should be of type int'),
        (dict(digit=3), "did you mean 'digits'"),
        (dict(block_size=4), 'block_size=4 is shorter'),
        (dict(n_test=100_000), 'cover .nearly. every input'),
        (dict(variant='mixit', pos='rope'), "pos='learned'"),
        (dict(dtype='float8'), 'dtype'),
        (dict(vocab_size=8), 'vocab_size=8 is smaller'),
    ],
)
def test_bad_input_fails_with_a_clear_message(tmp_path, bad, message):
    with pytest.raises(ConfigError, match=message):
        run(tmp_path, **bad)


def test_missing_or_mismatched_data_says_what_to_do(tmp_path):
    run(tmp_path, max_iters=1)
    (tmp_path / 'data' / 'train.npz').unlink()
    with pytest.raises(
        ConfigError,
        match=(
            'train.npz is missing or not a regular file: delete .*meta.json; '
            'the data is regenerated'
        ),
    ):
        run(tmp_path, max_iters=1)
    with pytest.raises(ConfigError, match='made with'):
        run(tmp_path, max_iters=1, digits=3)
    meta_path = tmp_path / 'data' / 'meta.json'  # data written under older split rules is refused
    meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), 'version': 1}))
    with pytest.raises(ConfigError, match='older data/synthetic.py'):
        run(tmp_path, max_iters=1)
    with pytest.raises(ConfigError, match='cannot resume'):
        run(tmp_path, run_name='never-ran', resume=True)


def test_help_says_what_every_key_means():
    """Every key of train.py, of the model and of each task has its meaning beside its default,
    apart from it; each task key's comment says whose default it is where the authors' code and the
    paper's text differ (dyck's length)."""
    from data import synthetic
    from data.loader import task_keys, task_module

    model_keys = {k: f.default for k, f in configurator.MODEL_KEYS.items() if k != 'vocab_size'}
    for task in synthetic.tasks():
        text = configurator.help_text(task)
        for key, value in {
            **model_keys,
            **configurator.DEFAULTS,
            **task_keys(task_module(task)),
        }.items():
            row = next(r for r in text.splitlines() if r.startswith(f'  --{key}='))
            default, meaning = (
                row[: len(f'  --{key}={value!r}')],
                row[len(f'  --{key}={value!r}') :],
            )
            assert (
                default == f'  --{key}={value!r}' and meaning.startswith(' ') and meaning.strip()
            ), f'{task}: {row}'
    dyck = configurator.help_text('dyck').split('keys of task dyck')[1]
    length = next(r for r in dyck.splitlines() if r.startswith('  --length=80'))
    assert "the authors' code" in length and "the paper's text: 40" in length


def test_command_line(tmp_path):
    out = subprocess.run(
        [sys.executable, 'train.py', '--lerning_rate=0.1'], cwd=ROOT, capture_output=True, text=True
    )
    assert (
        out.returncode != 0
        and "did you mean 'learning_rate'" in out.stderr
        and 'Traceback' not in out.stderr
    )
    helped = subprocess.run(
        [sys.executable, 'train.py', '--task=khop', '--help'],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0
    for key in list(configurator.DEFAULTS) + ['frozen_qk', 'mixit_std', 'max_hops']:
        assert f'--{key}=' in helped.stdout
    args = [f'--{k}={v}' for k, v in TINY.items()] + [
        f'--out_dir={tmp_path}/out',
        f'--data_dir={tmp_path}/data',
    ]
    done = subprocess.run(
        [sys.executable, 'train.py', *args, '--run_name=cli'],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1].startswith('addition / standard: held-out accuracy')
    # the same keys plus --sample continue a prompt of the task's tokens with the checkpoint
    said = subprocess.run(
        [
            sys.executable,
            'train.py',
            *args,
            '--run_name=cli',
            '--sample',
            '--prompt=12+',
            '--num_samples=2',
            '--max_new_tokens=4',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    texts = said.stdout.split('\n---------------\n')
    assert said.returncode == 0 and len(texts) == 2 and all(t.startswith('12+') for t in texts), (
        said.stderr[-2000:]
    )
    # a saved config.json reproduces the run
    again = subprocess.run(
        [sys.executable, 'train.py', f'{tmp_path}/out/cli/config.json', '--run_name=again'],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    a, b = weights(tmp_path, 'cli'), weights(tmp_path, 'again')
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_every_key_reaches_the_script_through_torchrun():
    """torchrun's own parser matches option prefixes even after the script name (e.g. --run= would
    be taken for --run-path); every key of train.py and of every task must pass through
    untouched."""
    from torch.distributed.run import get_args_parser
    from data.synthetic import load_task, tasks
    from configurator import MODEL_KEYS

    parser = get_args_parser()
    keys = set(configurator.DEFAULTS) | set(MODEL_KEYS)
    for name in tasks():
        keys |= set(load_task(name).DEFAULTS)
    for key in sorted(keys):
        args = parser.parse_args(['--standalone', 'train.py', f'--{key}=1'])
        assert args.training_script_args == [f'--{key}=1'], key


@pytest.mark.skipif(
    not torch.cuda.is_available(), reason='needs CUDA (bf16 autocast and torch.compile)'
)
@pytest.mark.parametrize(
    'variant', ['standard', 'frozen_qk', 'frozen_mlp', 'mixit', 'identity_query', 'random']
)
def test_cuda_bf16_compiled_training(tmp_path, variant):
    metrics = run(
        tmp_path, variant=variant, run_name=variant, device='cuda', max_iters=4, eval_interval=4
    )
    cfg = json.loads((tmp_path / 'out' / variant / 'config.json').read_text())
    assert math.isfinite(metrics['val_loss']) and cfg['compile'] is None and cfg['dtype'] == 'auto'


@pytest.mark.skipif(sys.platform != 'linux', reason='glibc malloc setting, Linux only')
def test_cpu_allocator_keeps_freed_memory():
    """After keep_freed_memory a freed 64 MiB block is reused without new page faults once the heap
    has grown to hold it (a few times, as in the training loop's first steps), where glibc's default
    maps fresh pages again every time (16,384 faults of 4 KiB). In a process of its own, as a
    training run is: a test worker's heap, grown and mapped around by the tests before, may not
    grow in one piece."""
    code = """
import resource, torch, devices
devices.keep_freed_memory()
faults = []
for _ in range(12):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    block = torch.empty(16 * 2**20).fill_(1.0)  # 64 MiB, every page touched
    del block
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(faults)
"""
    done = subprocess.run(
        [sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    faults = json.loads(done.stdout)
    assert max(faults[-4:]) < 1000, faults


@pytest.mark.skipif(
    not torch.cuda.is_available(), reason='needs CUDA (host-device synchronisation)'
)
def test_no_host_device_sync_between_log_steps(tmp_path):
    """The training step never waits for the GPU: the synchronisations CUDA reports (torch.cuda's
    sync debug mode) are those of logging, evaluation and checkpointing, so 8 more steps between
    them add none. Both a task whose examples live on the GPU and a token stream copied from the
    host are checked."""
    import warnings
    from data import corpus

    (tmp_path / 'book.txt').write_text('A tiny corpus, read in windows of the stream.\n' * 300)
    corpus.prepare('text', {'encoding': 'bytes'}, tmp_path / 'book.txt', tmp_path / 'text')
    tasks = [
        {},
        dict(task='text', encoding='bytes', block_size=32, data_dir=str(tmp_path / 'text')),
    ]
    for task in tasks:
        counts = []
        for steps in (4, 12):
            keys = {
                k: v
                for k, v in TINY.items()
                if not task or k not in ('digits', 'n_train', 'n_test')
            }
            config = {
                **keys,
                **task,
                'out_dir': str(tmp_path / 'out'),
                'device': 'cuda',
                'compile': False,
                'run_name': f'sync{steps}-{task.get("task", "addition")}',
                'max_iters': steps,
                'eval_interval': steps,
                'log_interval': steps,
            }
            config.setdefault('data_dir', str(tmp_path / 'data'))
            torch.cuda.set_sync_debug_mode('warn')
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter('always')
                    train(config)
            finally:
                torch.cuda.set_sync_debug_mode('default')
            counts.append(sum('synchroniz' in str(w.message) for w in caught))
        # one-time synchronisations (first use of a kernel or of pinned memory) can only make the
        # first run's count larger
        assert counts[1] <= counts[0], (
            f'{counts[1] - counts[0]} synchronisations in 8 more steps ({task or "addition"})'
        )


# modular addition at p=11, its table split in half: 61 of the 121 pairs held out, so about half of
# all draws are held-out inputs (explicit settings: the task's defaults are the authors' p=199)
MODADD = dict(task='modular_addition', p=11, train_frac=0.5, n_train=0, n_test=0)


def test_online_batches_are_fresh_reproducible_and_never_held_out(tmp_path):
    """online=True: step s's batch is drawn from the generator seeded by (data_seed, seed, s),
    held-out inputs redrawn:
    - the same on every call and in every process, different at every step;
    - no training row is a held-out input (brute force over the val split), every other input
      occurs, and the targets stay right;
    - the first draw's kept rows lead the batch in order;
    - a run trains and is reproducible;
    - a task without a generator is refused."""
    from data.synthetic import load_split, load_task

    cfg = configurator.resolve(dict(MODADD, online=True, seed=3, data_dir=str(tmp_path / 'data')))
    batches = loader.online_batches(cfg)
    held = {tuple(row) for row in load_split(tmp_path / 'data', 'val')[0].tolist()}
    assert len(held) == 61
    x0, y0 = batches(0, 64)
    first, _ = load_task('modular_addition').generate(np.random.default_rng([0, 3, 0]), 64, p=11)
    kept = [row for row in first.tolist() if tuple(row) not in held]
    assert 0 < len(kept) < 64 and x0[: len(kept)].tolist() == kept, (
        'the first draw, its held-out rows left out'
    )
    again = loader.online_batches(cfg)  # another process (DDP rank) or a resumed run
    seen = set()
    for step in range(30):
        x, y = batches(step, 64)
        assert x.shape == y.shape == (64, 2) and torch.equal(again(step, 64)[0], x)
        assert not {tuple(row) for row in x.tolist()} & held, (
            f'step {step} trains on a held-out input'
        )
        assert (y[:, 0] == -1).all() and torch.equal(y[:, 1], x.sum(1) % 11)
        seen |= {tuple(row) for row in x.tolist()}
    assert seen == {(a, b) for a in range(11) for b in range(11)} - held, (
        'every other input is drawn'
    )
    assert not torch.equal(batches(1, 64)[0], x0)
    small = dict(
        n_layer=1,
        n_embd=32,
        batch_size=16,
        max_iters=6,
        eval_interval=3,
        warmup_iters=2,
        progress=False,
        out_dir=str(tmp_path / 'out'),
        online=True,
    )
    runs = [
        train(dict(**small, **MODADD, data_dir=str(tmp_path / 'data'), run_name=f'on{i}'))
        for i in (0, 1)
    ]
    assert math.isfinite(runs[0]['val_loss']) and runs[0]['val_loss'] == runs[1]['val_loss']
    with pytest.raises(ConfigError, match='online=True needs a synthetic task with a generator'):
        train(dict(**small, task='memorization', size=4, data_dir=str(tmp_path / 'mem')))


def test_online_refuses_a_task_its_held_out_inputs_cover(tmp_path):
    """Held-out inputs that are every input of the task (all 9 pairs at p=3, written over the val
    split here) leave nothing to train on: a one-line error before any training, not an endless
    loop."""
    from data.synthetic import save_npz

    keys = dict(
        MODADD,
        p=3,
        online=True,
        data_dir=str(tmp_path / 'data'),
        out_dir=str(tmp_path / 'out'),
        progress=False,
    )
    loader.load_data(configurator.resolve(keys))  # the files
    pairs = np.array([(a, b) for a in range(3) for b in range(3)])
    save_npz(tmp_path / 'data' / 'val.npz', pairs, np.stack([np.full(9, -1), pairs.sum(1) % 3], 1))
    meta = json.loads((tmp_path / 'data' / 'meta.json').read_text())
    (tmp_path / 'data' / 'meta.json').write_text(
        json.dumps({**meta, 'n_val': 9})
    )  # as a prepare of them would say
    with pytest.raises(
        ConfigError, match='outside the 9 held-out inputs: .* lower n_test or enlarge the task'
    ):
        train(keys)
    assert not (tmp_path / 'out').exists()


def test_val_frac_holds_the_training_splits_tail_out(tmp_path):
    """val_frac (model selection):
    - the validation split is exactly the training split's last val_frac, and those rows are out of
      training: the kept training rows are the rest, in order (examples; a stream's tokens
      likewise);
    - online draws redraw validation inputs as they do held-out ones;
    - the run reports its split as 'validation';
    - a task measured on its training set (memorization) has nothing to hold out and is refused in
      one line."""
    from data.synthetic import load_split

    keys = dict(MODADD, data_dir=str(tmp_path / 'data'))
    _, (x_all, y_all), _, _ = loader.load_data(configurator.resolve(keys))
    _, (x_tr, y_tr), (x_va, y_va), _ = loader.load_data(
        configurator.resolve(dict(keys, val_frac=0.2))
    )
    k = round(0.2 * len(x_all))
    assert len(x_va) == k and torch.equal(x_tr, x_all[:-k]) and torch.equal(x_va, x_all[-k:])
    assert torch.equal(y_va, y_all[-k:]) and torch.equal(y_tr, y_all[:-k])
    cfg = configurator.resolve(dict(keys, online=True, val_frac=0.2))
    banned = {tuple(r) for r in x_va.tolist()} | {
        tuple(r) for r in load_split(tmp_path / 'data', 'val')[0].tolist()
    }
    batches = loader.online_batches(cfg)
    assert not any({tuple(r) for r in batches(s, 64)[0].tolist()} & banned for s in range(20))
    tokens = np.memmap(tmp_path / 'stream.bin', dtype=np.uint16, mode='w+', shape=(1000,))
    tokens[:] = np.arange(1000) % 50
    train_part, val_part = loader.validation_split(tokens, 0.1, dict(task='text', eval_split='val'))
    assert len(train_part) == 900 and np.array_equal(val_part, tokens[900:])
    m = train(
        dict(
            keys,
            val_frac=0.2,
            n_layer=1,
            n_embd=16,
            max_iters=2,
            eval_interval=2,
            warmup_iters=0,
            progress=False,
            out_dir=str(tmp_path / 'out'),
        )
    )
    assert m['eval_split'] == 'validation'
    with pytest.raises(ConfigError, match='measured on its training set.*set val_frac=0'):
        loader.load_data(
            configurator.resolve(
                dict(task='memorization', size=4, val_frac=0.1, data_dir=str(tmp_path / 'mem'))
            )
        )


def test_index_files_fix_each_steps_windows_and_each_evaluations(tmp_path):
    """train_indices and eval_indices (the identity-query authors' fixed windows): step s trains on
    the windows that start at row s of train_indices, and the evaluation at step s reports the mean
    loss over the windows of row s // eval_interval of eval_indices, computed here window by window
    from the run's weights; too few rows, or a window past the split's end, is refused in one
    line."""
    from data import corpus

    (tmp_path / 'book.txt').write_text(
        'In the beginning was a tiny corpus, read in windows.\n' * 40
    )
    folder = tmp_path / 'text'
    corpus.prepare('text', {'encoding': 'bytes'}, tmp_path / 'book.txt', folder)
    T, rng = 16, np.random.default_rng(0)
    tokens = {s: np.fromfile(folder / f'{s}.bin', dtype=np.uint16) for s in ('train', 'val')}
    starts = {
        'train': rng.integers(0, len(tokens['train']) - T, (4, 6)),
        'val': rng.integers(0, len(tokens['val']) - T, (3, 5)),
    }
    np.save(folder / 'train_indices.npy', starts['train'])
    np.save(folder / 'eval_val_indices.npy', starts['val'])
    keys = dict(
        task='text',
        encoding='bytes',
        data_dir=str(folder),
        block_size=T,
        n_layer=1,
        n_head=2,
        n_embd=16,
        batch_size=3,
        gradient_accumulation_steps=2,
        max_iters=4,
        eval_interval=2,
        warmup_iters=0,
        lr_decay_iters=4,
        progress=False,
        device='cpu',
        out_dir=str(tmp_path / 'out'),
        train_indices='train_indices.npy',
        eval_indices=str(folder / 'eval_val_indices.npy'),  # a path works as a name does
    )

    def windows(split, row):  # (x, y) of the windows at a row of starts, written out
        w = np.stack([tokens[split][s : s + T + 1] for s in row]).astype(np.int64)
        return torch.from_numpy(w[:, :-1]), torch.from_numpy(w[:, 1:])

    cfg = configurator.resolve(keys)
    batch = loader.batches(cfg, loader.load_data(cfg)[1], T, 'cpu')
    for step in range(4):
        micro = batch(step)
        x, y = (torch.cat([m[i] for m in micro]) for i in (0, 1))
        assert len(micro) == 2 and all(
            torch.equal(a, b) for a, b in zip((x, y), windows('train', starts['train'][step]))
        )
    for steps in (2, 4):  # the evaluation at step 2 in both runs, and at step 4
        m = train({**keys, 'max_iters': steps, 'run_name': f'{steps}'})
        ckpt = torch.load(Path(m['run_dir']) / 'ckpt.pt', weights_only=True)
        model = GPT(GPTConfig(**ckpt['model_args']))
        model.load_state_dict(ckpt['model'])
        model.eval()
        with torch.no_grad():  # model.py's loss: the mean over the row's tokens
            losses = [model(*windows('val', row))[1].item() for row in starts['val']]
        assert m['val_loss'] == pytest.approx(losses[steps // 2], rel=1e-5)
        assert all(abs(m['val_loss'] - loss) > 1e-4 for loss in losses[: steps // 2])
    log = [json.loads(line) for line in (tmp_path / 'out' / '4' / 'log.jsonl').open()]
    assert log[0]['step'] == 2 and log[0]['val_loss'] == pytest.approx(
        json.loads((tmp_path / 'out' / '2' / 'log.jsonl').read_text())['val_loss'], rel=1e-6
    )
    for bad, message in (
        (dict(max_iters=5), r'holds 4 rows of 6, not max_iters=5 rows'),
        (dict(max_iters=6), r'holds 3 rows; max_iters=6 at eval_interval=2 reads 4'),
        (dict(block_size=T + 40), r'holds window starts outside \[0, '),
    ):
        with pytest.raises(ConfigError, match=message) as e:
            train({**keys, **bad, 'run_name': 'bad'})
        assert '\n' not in str(e.value)


@pytest.mark.parametrize('schedule', ['cosine', 'linear'])
def test_lr_schedule_is_the_formula(schedule):
    """get_lr against each schedule written out: warm-up (step + 1) / (warmup + 1) of the peak, then
    cosine (nanoGPT) or a straight line (HF's get_linear_schedule_with_warmup: (D - s) / (D - w) of
    the peak when min_lr = 0) down to min_lr at lr_decay_iters, min_lr beyond."""
    lr, low, w, D = 1e-3, 1e-4, 10, 110
    cfg = configurator.resolve(
        dict(
            lr_schedule=schedule,
            learning_rate=lr,
            min_lr=low,
            warmup_iters=w,
            lr_decay_iters=D,
            max_iters=200,
        )
    )
    for s in (0, 4, 9):
        assert train_module.get_lr(s, cfg) == pytest.approx(lr * (s + 1) / (w + 1), rel=1e-12)
    for s in (10, 35, 60, 100, 109):
        t = (s - w) / (D - w)
        decay = 0.5 * (1 + math.cos(math.pi * t)) if schedule == 'cosine' else (D - s) / (D - w)
        assert train_module.get_lr(s, cfg) == pytest.approx(low + decay * (lr - low), rel=1e-12)
    assert train_module.get_lr(60, cfg) == pytest.approx((lr + low) / 2, rel=1e-12), (
        'half way: the mean, both'
    )
    for s in (110, 150, 199):
        assert train_module.get_lr(s, cfg) == low
    hf = dict(cfg, min_lr=0.0)
    if schedule == 'linear':
        assert [train_module.get_lr(s, hf) for s in (10, 85, 110)] == pytest.approx(
            [lr, lr / 4, 0.0], rel=1e-12
        )


def test_resume_may_change_the_schedule(tmp_path):
    """lr_schedule is RESUMABLE: a run resumed with the linear schedule goes on with its lr
    (log.jsonl)."""
    run(tmp_path, run_name='s', max_iters=4, eval_interval=2, lr_decay_iters=8)
    train(
        dict(
            out_dir=str(tmp_path / 'out'),
            data_dir=str(tmp_path / 'data'),
            run_name='s',
            resume=True,
            max_iters=6,
            lr_schedule='linear',
        )
    )
    log = [
        json.loads(line) for line in (tmp_path / 'out' / 's' / 'log.jsonl').read_text().splitlines()
    ]
    cfg = json.loads((tmp_path / 'out' / 's' / 'config.json').read_text())
    assert [e['step'] for e in log] == [2, 4, 6] and cfg['lr_schedule'] == 'linear'
    # the lr of the last step trained, s = 5: warm-up 2, decay to min_lr 3e-4 at 8 from the default
    # peak 3e-3
    assert log[-1]['lr'] == pytest.approx(3e-4 + (8 - 5) / (8 - 2) * (3e-3 - 3e-4), rel=1e-12)


# --------------------------------------------------------------------- --init_from: GPT-2's weights

# GPT-2's vocabulary, so that data in GPT-2's tokens (gpt2_text) trains from it
GPT2 = dict(n_layer=2, n_head=2, n_embd=16, vocab_size=50257, n_positions=64)


def gpt2_files(folder, fmt='safetensors', seed=0):
    """A small GPT-2 in Hugging Face's layout, as save_pretrained writes it: config.json and its
    weights (transformer.* names, Conv1D weights (in, out), the old causal-mask buffers), every
    tensor random, norms and biases included."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape):
        return torch.randn(shape, generator=g) * 0.3

    n, V = GPT2['n_embd'], GPT2['vocab_size']
    sd = {
        'wte.weight': r(V, n),
        'wpe.weight': r(GPT2['n_positions'], n),
        'ln_f.weight': 1 + r(n),
        'ln_f.bias': r(n),
    }
    for i in range(GPT2['n_layer']):
        shapes = {
            'ln_1': [n],
            'attn.c_attn': [n, 3 * n],
            'attn.c_proj': [n, n],
            'ln_2': [n],
            'mlp.c_fc': [n, 4 * n],
            'mlp.c_proj': [4 * n, n],
        }
        for name, shape in shapes.items():
            sd[f'h.{i}.{name}.weight'] = (1 + r(n)) if name.startswith('ln') else r(*shape)
            sd[f'h.{i}.{name}.bias'] = r(shape[-1])
        sd[f'h.{i}.attn.bias'] = torch.tril(
            torch.ones(1, 1, 64, 64)
        )  # older files: the mask, not a weight
    sd = {f'transformer.{k}': v for k, v in sd.items()}
    folder.mkdir(parents=True)
    (folder / 'config.json').write_text(
        json.dumps(
            dict(
                GPT2,
                model_type='gpt2',
                activation_function='gelu_new',
                n_inner=None,
                layer_norm_epsilon=1e-5,
            )
        )
    )
    if fmt == 'bin':
        torch.save(sd, folder / 'pytorch_model.bin')
    else:
        write_safetensors(folder / 'model.safetensors', sd)
    return sd


def write_safetensors(path, tensors):
    """float32 `tensors` as a .safetensors file, by its specification: a header's length (8 bytes,
    little-endian), a JSON header, the data, the tensors in order."""
    header, data, at = {'__metadata__': {'format': 'pt'}}, [], 0
    for name, t in tensors.items():
        b = t.contiguous().numpy().tobytes()
        header[name] = dict(dtype='F32', shape=list(t.shape), data_offsets=[at, at + len(b)])
        data.append(b)
        at += len(b)
    head = json.dumps(header).encode()
    Path(path).write_bytes(len(head).to_bytes(8, 'little') + head + b''.join(data))


def gpt2_reference(sd, idx):
    """GPT-2's forward pass as Hugging Face's GPT2LMHeadModel computes it, from its own tensors, in
    float64: x W + b for Conv1D, LayerNorm eps 1e-5, scores / sqrt(head_dim) under a causal mask,
    the tanh GELU, the head tied to wte."""

    def w(name):
        return sd['transformer.' + name].double()

    (B, T), n, H = idx.shape, GPT2['n_embd'], GPT2['n_head']

    def ln(x, name):
        return torch.nn.functional.layer_norm(x, (n,), w(name + '.weight'), w(name + '.bias'), 1e-5)

    def conv(x, name):
        return x @ w(name + '.weight') + w(name + '.bias')

    def heads(t):
        return t.view(B, T, H, n // H).transpose(1, 2)

    x = w('wte.weight')[idx] + w('wpe.weight')[:T]
    for i in range(GPT2['n_layer']):
        q, k, v = conv(ln(x, f'h.{i}.ln_1'), f'h.{i}.attn.c_attn').split(n, dim=-1)
        scores = heads(q) @ heads(k).transpose(-1, -2) / math.sqrt(n // H)
        scores = scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float('-inf'))
        x = x + conv(
            (scores.softmax(-1) @ heads(v)).transpose(1, 2).reshape(B, T, n), f'h.{i}.attn.c_proj'
        )
        h = conv(ln(x, f'h.{i}.ln_2'), f'h.{i}.mlp.c_fc')
        h = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))  # gelu_new
        x = x + conv(h, f'h.{i}.mlp.c_proj')
    return ln(x, 'ln_f') @ w('wte.weight').T


def gpt2_model(folder, **keys):
    """model.py's model built and loaded as train.py does for --init_from=folder."""
    cfg = configurator.resolve(dict(task='dyck', init_from=str(folder), **keys))
    gpt2 = gpt2_module.gpt2_files(cfg['init_from'])
    model = GPT(GPTConfig(**configurator.model_args_of(cfg, dict(vocab_size=4), 32, gpt2)))
    own, unused = gpt2_module.load_gpt2(model, gpt2[1])
    return (
        model,
        f"at this code's init: {', '.join(own) or 'none'}; "
        f'left unused: {", ".join(unused) or "none"}',
    )


def test_from_pretrained_is_the_init_from_model(tmp_path):
    """gpt2.from_pretrained (nanoGPT's one call) builds the model --init_from builds: the same
    weights, so GPT-2's logits; a variant's own parts (MixiT's matrices) as this code draws them."""
    sd = gpt2_files(tmp_path / 'gpt2')
    model = gpt2_module.from_pretrained(tmp_path / 'gpt2', block_size=32)
    idx = torch.randint(0, GPT2['vocab_size'], (3, 32), generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(
        model(idx, idx)[0].double(), gpt2_reference(sd, idx), rtol=0, atol=1e-5
    )
    for variant in ('frozen_qk', 'mixit'):
        ours, _ = gpt2_model(tmp_path / 'gpt2', variant=variant)
        theirs = gpt2_module.from_pretrained(tmp_path / 'gpt2', variant=variant, block_size=32)
        assert ours.state_dict().keys() == theirs.state_dict().keys()
        assert all(torch.equal(v, theirs.state_dict()[k]) for k, v in ours.state_dict().items())


@pytest.mark.parametrize('fmt', ['safetensors', 'bin'])
def test_init_from_gpt2_gives_gpt2s_logits(tmp_path, fmt):
    sd = gpt2_files(tmp_path / 'gpt2', fmt)
    model, loaded = gpt2_model(tmp_path / 'gpt2')
    assert (
        'left unused: none' in loaded
        and model.config.block_size == 32
        and model.config.mlp == 'gelu_tanh'
    )
    idx = torch.randint(0, GPT2['vocab_size'], (3, 32), generator=torch.Generator().manual_seed(1))
    logits, _ = model(idx, idx)
    reference = gpt2_reference(sd, idx)
    assert reference.std() > 0.5, 'logits far from zero: a wrong mapping would show'
    torch.testing.assert_close(logits.double(), reference, rtol=0, atol=1e-5)
    for variant, unused in (
        ('identity_query', 'q_proj'),
        ('mixit', 'k_proj'),
    ):  # loads what the variant has
        model, loaded = gpt2_model(tmp_path / 'gpt2', variant=variant)
        assert unused in loaded.split('left unused: ')[1]
        attn = model.h[1].attn  # identity_query: W_K, W_V one linear (kv_proj); MixiT: W_V alone
        v = attn.kv_proj.weight[16:] if variant == 'identity_query' else attn.v_proj.weight
        assert torch.equal(v, sd['transformer.h.1.attn.c_attn.weight'][:, 32:].T)


def test_init_from_trains_frozen_parts_frozen_at_gpt2s_values(tmp_path, monkeypatch):
    """frozen_qk from GPT-2: after training, W_Q and W_K are GPT-2's, bit for bit, and the rest has
    moved. Through a stand-in of transformers too (what 'gpt2' by name reads when it is installed
    and online)."""
    sd = gpt2_files(tmp_path / 'gpt2')
    gpt2_text(tmp_path / 'data', monkeypatch)
    keys = dict(
        INIT_FROM_RUN,
        variant='frozen_qk',
        max_iters=3,
        eval_interval=3,
        batch_size=8,
        out_dir=str(tmp_path / 'out'),
        data_dir=str(tmp_path / 'data'),
        init_from=str(tmp_path / 'gpt2'),
    )
    train(keys)
    ckpt = torch.load(next((tmp_path / 'out').glob('*/ckpt.pt')), weights_only=True)
    c_attn = sd['transformer.h.0.attn.c_attn.weight']
    assert torch.equal(
        ckpt['model']['h.0.attn.qk_proj.weight'], c_attn[:, :32].T
    )  # W_Q, W_K: one frozen linear
    assert not torch.equal(ckpt['model']['h.0.attn.v_proj.weight'], c_attn[:, 32:].T), 'trained'
    assert ckpt['model_args']['n_layer'] == 2 and ckpt['model_args']['vocab_size'] == 50257

    class GPT2LMHeadModel:  # transformers' interface, as far as gpt2_weights uses it
        @classmethod
        def from_pretrained(cls, name):
            if name != 'gpt2':
                raise OSError(f'{name} is not a model on the hub')
            hf = cls()
            hf.config = type('Config', (), dict(to_dict=lambda self: dict(GPT2, n_inner=None)))()
            return hf

        def state_dict(self):
            return sd

    monkeypatch.setitem(sys.modules, 'transformers', type(sys)('transformers'))
    monkeypatch.setattr(
        sys.modules['transformers'], 'GPT2LMHeadModel', GPT2LMHeadModel, raising=False
    )
    by_name = train({**keys, 'init_from': 'gpt2', 'run_name': 'hub'})
    assert by_name['val_loss'] == pytest.approx(
        json.loads(next((tmp_path / 'out').glob('text-*/log.jsonl')).read_text())['val_loss'],
        abs=1e-6,
    )


# a one-step run on a tiny corpus in GPT-2's tokens (gpt2_text): what --init_from's checks run on
INIT_FROM_RUN = dict(
    task='text', block_size=32, batch_size=4, eval_examples=4, max_iters=1, progress=False
)


def gpt2_text(folder, monkeypatch):
    """A small 'text' corpus in GPT-2's tokens, as data/text/prepare.py writes it (data/corpus.py's
    prepare, meta.json's encoding 'gpt2'), through a stand-in of tiktoken's GPT-2 encoding, whose
    files need the network: each byte its own id, in GPT-2's 50,257 tokens with its end-of-text."""
    import tiktoken
    from data import corpus

    stand_in = tiktoken.Encoding(
        name='gpt2',
        pat_str=r'[\s\S]{1,256}',
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={'<|endoftext|>': 50256},
    )
    source = folder.parent / 'gpt2_text.txt'
    source.write_text(''.join(f'line {i}: a quick brown fox jumps\n' for i in range(500)))
    with monkeypatch.context() as m:
        m.setattr(corpus, 'get_encoding', lambda name: stand_in)
        corpus.prepare('text', dict(encoding='gpt2'), str(source), folder)


def test_init_from_refuses_what_cannot_load(tmp_path, monkeypatch):
    gpt2_files(tmp_path / 'gpt2')
    gpt2_text(tmp_path / 'data', monkeypatch)
    (tmp_path / 'empty').mkdir()
    (tmp_path / 'config_only').mkdir()
    (tmp_path / 'config_only' / 'config.json').write_text(
        (tmp_path / 'gpt2' / 'config.json').read_text()
    )
    base = dict(
        INIT_FROM_RUN,
        out_dir=str(tmp_path / 'out'),
        data_dir=str(tmp_path / 'data'),
        init_from=str(tmp_path / 'gpt2'),
    )
    monkeypatch.setitem(sys.modules, 'transformers', None)  # not installed
    for keys, says in (
        (dict(n_layer=4), 'whose n_layer is 2: drop --n_layer'),
        (dict(norm='rmsnorm'), "whose norm is 'layernorm': drop --norm"),
        (dict(variant='universal_random'), 'choose a variant with a standard block'),
        (dict(block_size=100), 'GPT-2 has 64 positions: set block_size <= 64'),
        (dict(init_from=str(tmp_path / 'empty')), 'empty/config.json (No such file or directory)'),
        (dict(init_from=str(tmp_path / 'config_only')), 'holds neither model.safetensors nor'),
        (dict(init_from='gpt2'), 'needs transformers (pip install transformers)'),
    ):
        with pytest.raises(ConfigError, match=re.escape(says)):
            train({**base, **keys})
    assert not (tmp_path / 'out').exists(), 'nothing written'


# ------------------------------------------------------- config files, run folders, eval batches

CONFIGS = ROOT / 'experiments' / 'config'


def config_source(path):
    """-> (experiment, point) of a config file's docstring line `experiment: NAME, key=value, ...`
    (a value a|b: the file's, then those --variant=b trains with the same keys), or ('DEFAULT_RUN',
    {}) for `experiment: configurator.DEFAULT_RUN`."""
    import ast

    doc = ast.get_docstring(ast.parse(path.read_text())) or ''
    lines = [line for line in doc.splitlines() if line.startswith('experiment:')]
    assert len(lines) == 1, f'{path.name}: one docstring line "experiment: ..." says its run'
    name, *pairs = re.split(r',\s*(?=\w+=)', lines[0].removeprefix('experiment:').strip())
    if name == 'configurator.DEFAULT_RUN':
        return 'DEFAULT_RUN', {}
    return name, dict(pair.split('=', 1) for pair in pairs)


def test_config_files_are_their_protocols_keys():
    """Every file of experiments/config/ resolves, and its keys are exactly those its experiment's
    full protocol trains at the row its docstring names (common.config, and the batch as the
    experiment splits it: BATCH['full'] sequences in micro-batches of the file's batch_size), or
    configurator.DEFAULT_RUN; a variant named after `|` trains with the same keys. Tables 1-3 of
    the MixiT paper have a file for every row and variant."""
    import argparse

    from experiments.harness import common

    covered = set()
    for path in sorted(CONFIGS.glob('*.py')):
        keys = configurator.parse_args([str(path)])
        configurator.resolve(keys)
        name, point = config_source(path)
        if name == 'DEFAULT_RUN':
            assert keys == configurator.DEFAULT_RUN, path.name
            continue
        module = common.experiment_module(name)
        for i, variant in enumerate(point['variant'].split('|')):
            expected = common.config(module.PROTOCOL['full'], **{**point, 'variant': variant})
            if hasattr(module, 'BATCH'):
                micro = argparse.Namespace(mode='full', micro_batch=keys.get('batch_size'))
                expected.update(common.batch_keys(micro, module.BATCH['full']))
            given = keys if i == 0 else {**keys, 'variant': expected['variant']}
            assert given == expected, f'{path.name} is not {name} {point} at variant {variant}'
            covered.add((name, point.get('task'), variant))
    for name in ('algorithmic', 'induction', 'language_modeling'):
        sweep = common.experiment_module(name).PROTOCOL['full']['sweep']
        for task in sweep['task']:
            for variant in sweep['variant']:
                assert (name, task, variant) in covered, (
                    f'no config file for {name} {task} {variant}'
                )


@pytest.mark.parametrize(
    'text, line, shown',
    [
        ('"""a docstring"""\nimport os\n', 2, 'import os'),
        ('# a comment\nmax_iters = int(5)\n', 2, 'max_iters = int(5)'),
        ('max_iters = 5\nlearning_rate = max_iters\n', 2, 'learning_rate = max_iters'),
        ('max_iters = 5 * 8\n', 1, 'max_iters = 5 * 8'),
        ('max_iters += 1\n', 1, 'max_iters += 1'),
        ('batch_size = set()\n', 1, 'batch_size = set()'),
        ("out_dir = __import__('os').mkdir('made')\n", 1, 'out_dir = __import__'),
        ('n_layer = 2\nlerning_rate = 0.1\n', 2, "did you mean 'learning_rate'"),
        ("task = 'addition'\ndigits = 'two'\n", 2, "digits='two' should be of type int"),
        ('max_iters = (\n', 1, 'never closed'),
        ('max_iters = 5\noverwrite = True\n', 2, 'type --overwrite on the command line'),
        ('resume = True\n', 1, 'type --resume on the command line'),
        # nanoGPT's exec keeps the last without a word
        ('max_iters = 5\nn_layer = 2\nmax_iters = 7\n', 3, 'max_iters is set on line 1 too'),
    ],
)
def test_config_file_refuses_what_is_not_a_literal_in_one_line(
    tmp_path, monkeypatch, text, line, shown
):
    """A config file is read, never run: anything but `key = literal` lines, or a key the run does
    not have, is one line naming the file and the line, and nothing in it runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'c.py').write_text(text)
    with pytest.raises(ConfigError) as e:
        configurator.parse_args(['c.py'])
    assert str(e.value).startswith(f'c.py, line {line}: ') and '\n' not in str(e.value)
    assert shown in str(e.value) and not (tmp_path / 'made').exists()


def test_config_file_then_flags_in_order(tmp_path):
    """As nanoGPT's configurator: a later argument wins, a flag after the file over its key."""
    default = str(CONFIGS / 'default.py')
    assert configurator.parse_args([default, '--max_iters=2'])['max_iters'] == 2
    assert configurator.parse_args(['--max_iters=2', default])['max_iters'] == 500


def test_a_saved_config_fills_what_the_command_line_leaves(tmp_path):
    """A run's config.json holds every key, resume=False and sample=False among them: read from the
    run's folder or the file, it fills only the keys not given before it and never what the command
    does (configurator.COMMAND_KEYS), so `--resume out/<run>` resumes and a flag before it stands;
    a flag after it wins as after any file."""
    run = tmp_path / 'out' / 'r'
    run.mkdir(parents=True)
    saved = dict(configurator.resolve({}), max_iters=7, resume=False, sample=False, overwrite=False)
    (run / 'config.json').write_text(json.dumps(saved))
    for where in (str(run), str(run / 'config.json')):
        got = configurator.parse_args(['--resume', '--max_iters=9', where, '--seed=3'])
        assert got['resume'] is True and got['max_iters'] == 9 and got['seed'] == 3
        assert configurator.parse_args([where])['max_iters'] == 7
        assert not {'resume', 'sample', 'overwrite'} & set(configurator.parse_args([where]))
    linked = tmp_path / 'link'
    linked.symlink_to(run)
    got = configurator.parse_args([f'{linked}/'])
    assert (got['out_dir'], got['run_name']) == (str(run.resolve().parent), 'r')  # the folder


def test_a_run_folder_never_chooses_where_a_run_reads_writes_or_sends(tmp_path):
    """A run's folder given to --resume or --sample: its config.json's data_dir and W&B keys are not
    taken (a checkpoint never chooses them, checkpoint.CHOSEN_NOW; the file may be another's), its
    out_dir and run_name are the folder; the same file given as a config file sets them. A command
    key set in a config file (JSON's "sample": true) is refused, not dropped, and --resume with
    --sample (or either with --overwrite) is two commands, two runs' folders two runs."""
    run = tmp_path / 'out' / 'r'
    run.mkdir(parents=True)
    saved = dict(
        configurator.resolve({}),
        data_dir=str(tmp_path / 'elsewhere'),
        wandb_log=True,
        wandb_project='someone-else',
        resume=False,
        sample=False,
    )
    (run / 'config.json').write_text(json.dumps(saved))
    got = configurator.parse_args([str(run), '--resume'])
    assert not {'data_dir', 'wandb_log', 'wandb_project', 'wandb_run_name'} & set(got)
    assert (got['out_dir'], got['run_name']) == (str(run.parent), 'r')
    as_file = configurator.parse_args([str(run / 'config.json')])
    assert as_file['wandb_log'] is True and as_file['data_dir'] == str(tmp_path / 'elsewhere')
    (tmp_path / 'c.json').write_text(json.dumps({'task': 'dyck', 'sample': True}))
    with pytest.raises(ConfigError, match='c.json: sample says what the command does'):
        configurator.parse_args([str(tmp_path / 'c.json')])
    for two in (
        ['--resume', '--sample'],
        ['--resume', '--overwrite=True'],
        ['--sample', '--overwrite'],
    ):
        with pytest.raises(ConfigError, match='are two commands .*: give one of them'):
            configurator.parse_args(two)
    # two runs' folders: the second's keys would fill what the first's leave (another task's)
    other = tmp_path / 'out' / 's'
    other.mkdir()
    (other / 'config.json').write_text(json.dumps({**saved, 'task': 'text', 'encoding': 'bytes'}))
    with pytest.raises(
        ConfigError, match="are two runs' folders: give the one to resume or sample"
    ):
        configurator.parse_args([str(run), str(other), '--resume'])


def test_a_key_given_twice_or_without_its_value_is_refused_not_dropped(tmp_path):
    """A key typed twice, set in two config files or twice in a config.json would keep the later
    without a word, and two config files of two tasks would check the first's task keys against
    the second's task (or mix them): each is refused, naming both; a flag typed after a config file
    is over it. A bare --key is True, so a key of a number alone is a missing value, said so (the
    experiments' --at says its own flag); a bare on-or-off key stays True. Numbers that Python
    reads otherwise than typed (1e-400 as 0.0, 5,000 digits as text), a schedule that would rise
    after its warm-up or end its decay before it, and a run name with a newline are refused."""
    with pytest.raises(ConfigError, match=r'--max_iters is given twice \(--max_iters=3, then'):
        configurator.parse_args(['--max_iters=3', '--max_iters=4'])
    assert configurator.parse_args(['--max_iters=3', '--n_layer=4'])['max_iters'] == 3
    with pytest.raises(ConfigError, match=r'--at=n_layer is given twice \(--at=n_layer=3, then'):
        configurator.parse_args(['--n_layer=3', '--n_layer=4'], flag='--at=')
    with pytest.raises(ConfigError, match=r'--n_layer takes a value: --n_layer=VALUE \(default'):
        configurator.parse_args(['--n_layer'])
    with pytest.raises(ConfigError, match='--at=digits takes a value: --at=digits=VALUE'):
        configurator.parse_args(['--task=addition', '--digits'], flag='--at=')
    assert configurator.parse_args(['--bias'])['bias'] is True
    a, b = tmp_path / 'a.py', tmp_path / 'b.py'
    a.write_text("task = 'dyck'\nlength = 40\n")
    b.write_text("task = 'addition'\ndigits = 3\n")
    for first, second in ((a, b), (b, a)):
        with pytest.raises(ConfigError, match=f"{first} sets task='.*' and {second} task="):
            configurator.parse_args([str(first), str(second)])
    (tmp_path / 'c.py').write_text('n_layer = 3\n')  # keys of their own: both read
    assert configurator.parse_args([str(a), str(tmp_path / 'c.py')])['n_layer'] == 3
    (tmp_path / 'd.py').write_text('\nn_layer = 4\n')  # the same key: one would win without a word
    with pytest.raises(
        ConfigError, match=r'n_layer is set in .*c.py \(line 1\) and .*d.py \(line 2\)'
    ):
        configurator.parse_args([str(tmp_path / 'c.py'), str(tmp_path / 'd.py')])
    assert configurator.parse_args([str(tmp_path / 'c.py'), '--n_layer=5'])['n_layer'] == 5
    for bad in ('nan', '-inf'):
        with pytest.raises(ConfigError, match=f'learning_rate={bad} must be a finite number'):
            configurator.resolve(configurator.parse_args([f'--learning_rate={bad}']))
    (tmp_path / 'two.json').write_text('{"task": "dyck", "max_iters": 3, "max_iters": 4}')
    with pytest.raises(ConfigError, match="two.json sets 'max_iters' twice"):
        configurator.parse_args([str(tmp_path / 'two.json')])
    with pytest.raises(ConfigError, match='1e-400 is below the smallest float and reads as 0.0'):
        configurator.parse_args(['--learning_rate=1e-400'])
    assert configurator.parse_args(['--learning_rate=0.0e-5'])['learning_rate'] == 0
    with pytest.raises(ConfigError, match='--max_iters of more than 4,300 digits is beyond'):
        configurator.parse_args(['--max_iters=' + '1' * 5000])
    (tmp_path / 'huge.py').write_text('max_iters = ' + '1' * 5000 + '\n')
    with pytest.raises(ConfigError, match='huge.py, line 1: a number of more than 4,300 digits'):
        configurator.parse_args([str(tmp_path / 'huge.py')])
    for keys, says in (
        (['--min_lr=1.0'], 'min_lr=1.0 is above learning_rate=0.003'),
        (['--lr_decay_iters=1', '--warmup_iters=2'], 'lr_decay_iters=1 ends the decay before'),
        (['--run_name=a\nb'], "run_name='a\\\\nb' holds a control character"),
    ):
        with pytest.raises(ConfigError, match=says):
            configurator.resolve(configurator.parse_args(keys))
    with pytest.raises(ConfigError, match="unknown task 'bogus'"):
        configurator.help_text('bogus')


def test_another_process_of_the_run_ending_is_one_line_not_gloos_traceback(monkeypatch, capsys):
    """Under torchrun, a process whose peer ended (killed, Ctrl-C in its terminal) meets gloo's
    'Connection reset by peer' in its next collective: one line that says so and that the last
    checkpoint stays, exit status 1; any other RuntimeError keeps its traceback."""
    monkeypatch.setenv('RANK', '0')
    monkeypatch.setattr(configurator, 'launch', lambda: (0, 2))
    monkeypatch.setattr(configurator, 'leave', lambda code: sys.exit(code))
    gloo = '[pair.cc:537] Read error [127.0.0.1]:30443: Connection reset by peer. This is typically'
    with pytest.raises(SystemExit) as stop, configurator.command_line():
        raise RuntimeError(gloo)
    err = capsys.readouterr().err
    assert stop.value.code == 1 and err.count('\n') == 1
    assert err.startswith('error: another process of this run ended (Connection reset by peer)')
    with pytest.raises(RuntimeError, match='a bug'), configurator.command_line():
        raise RuntimeError('a bug')


def test_default_config_file_trains_through_main(tmp_path, capsys):
    """python train.py experiments/config/default.py --max_iters=2: the default run's keys, tiny,
    end to end through the command line's main."""
    train_module.main(
        [
            str(CONFIGS / 'default.py'),
            '--max_iters=2',
            '--eval_interval=2',
            '--n_train=100',
            '--n_test=20',
            '--batch_size=8',
            '--n_embd=16',
            '--progress=False',
            f'--out_dir={tmp_path / "out"}',
            f'--data_dir={tmp_path / "data"}',
        ]
    )
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith('dyck / standard: held-out')
    (saved,) = (tmp_path / 'out').glob('*/config.json')
    cfg = json.loads(saved.read_text())
    assert {k: cfg[k] for k in configurator.DEFAULT_RUN} == {
        **configurator.DEFAULT_RUN,
        'max_iters': 2,
    }


def test_sample_from_a_run_folder(tmp_path, capsys):
    """--sample out/<run>: the run's folder gives its config.json and is itself the run found, so
    the texts are those of its config.json, also once the folder is moved and renamed (where its
    config.json's out_dir no longer leads); nanoGPT's `python sample.py --out_dir=out/<run>
    --start=...` prints the same. A folder without config.json, and a path that is nothing, are one
    line."""
    run(tmp_path, run_name='s')
    folder = tmp_path / 'out' / 's'
    flags = ['--sample', '--prompt=12+', '--num_samples=2', '--max_new_tokens=4']

    def texts(path):
        return sample.sample_text(configurator.parse_args([flags[0], str(path), *flags[1:]]))

    by_config = texts(folder / 'config.json')
    assert texts(folder) == by_config and all(t.startswith('12+') for t in by_config)
    moved = tmp_path / 'elsewhere' / 'cut'
    moved.parent.mkdir()
    folder.rename(moved)
    assert texts(moved) == by_config
    capsys.readouterr()  # the training's lines
    train_module.main([flags[0], str(moved), *flags[1:]])
    assert capsys.readouterr().out.strip() == '\n---------------\n'.join(by_config)
    sample.main([f'--out_dir={moved}', '--start=12+', *flags[2:]])
    assert capsys.readouterr().out.strip() == '\n---------------\n'.join(by_config)
    with pytest.raises(SystemExit) as e:
        sample.main([f'--out_dir={tmp_path / "nothing"}', '--start=12+'])
    err = capsys.readouterr().err
    assert (
        e.value.code == 2
        and err.startswith('error: cannot sample: no run in')
        and err.count('\n') == 1
    )
    for bad, says in (
        (tmp_path / 'elsewhere', 'is a folder without config.json'),
        (tmp_path / 'nothing', 'is neither --key=value nor an existing'),
    ):
        with pytest.raises(SystemExit) as e:
            train_module.main(['--sample', str(bad)])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith('error: ') and err.count('\n') == 1
        assert says in err


def test_init_from_refuses_data_not_in_gpt2s_tokens(tmp_path, monkeypatch, capsys):
    """GPT-2's weights read GPT-2's token ids: a synthetic task (tokens of its own), a corpus in the
    byte-level stand-in (encoding='bytes'), or data_dir's byte-level data is refused in one line
    before anything is written, synthetic data included; the message says how to re-encode."""
    from data import corpus

    gpt2_files(tmp_path / 'gpt2')
    source = tmp_path / 'book.txt'
    source.write_text('a few lines\n' * 400)
    corpus.prepare('text', dict(encoding='bytes'), str(source), tmp_path / 'bytes')
    base = dict(INIT_FROM_RUN, out_dir=str(tmp_path / 'out'), init_from=str(tmp_path / 'gpt2'))
    for keys, says in (
        (dict(task='dyck', data_dir=str(tmp_path / 'dyck')), 'dyck has tokens of its own'),
        (
            dict(encoding='bytes', data_dir=str(tmp_path / 'bytes')),
            "encoding='bytes' is another tokenizer's: prepare the data in GPT-2's (python "
            'data/text/prepare.py --encoding=gpt2',
        ),
        (dict(data_dir=str(tmp_path / 'bytes')), "made with encoding='bytes'"),
    ):
        with pytest.raises(SystemExit) as e:
            train_module.main([f'--{k}={v}' for k, v in {**base, **keys}.items()])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count('\n') == 1 and says in err, err
    assert not (tmp_path / 'out').exists() and not (tmp_path / 'dyck').exists()


def test_eval_batch_is_a_ceiling_that_fits_the_memory(tmp_path, monkeypatch):
    """A 50,257-token head whose default evaluation batch (512) the memory cannot hold evaluates
    with the largest batch that fits, and its numbers are those of the whole split in one batch and
    of a small explicit eval_batch_size: evaluate's sums do not depend on the batch."""
    batches = []
    evaluate = train_module.evaluate

    def spy(model, x, y, batch_size, *args):
        batches.append(batch_size)
        return evaluate(model, x, y, batch_size, *args)

    monkeypatch.setattr(train_module, 'evaluate', spy)
    big = dict(vocab_size=50257, n_test=100, eval_batch_size=512)
    whole = run(tmp_path, run_name='whole', **big)  # this machine's memory: 100 in one batch
    small = run(tmp_path, run_name='small', **{**big, 'eval_batch_size': 7})
    assert batches == [512, 512, 7, 7]
    # a device holding the weights and optimizer state and about 40 evaluation examples: the
    # logits (and their float32 copy) of T positions over the vocabulary each
    ckpt = torch.load(tmp_path / 'out' / 'whole' / 'ckpt.pt', weights_only=True)
    params = sum(v.numel() for v in ckpt['model'].values())
    T, V = ckpt['model_args']['block_size'], ckpt['model_args']['vocab_size']
    monkeypatch.setattr(devices, 'device_memory', lambda device: 16 * params + 40 * 8 * T * V)
    fitted = run(tmp_path, run_name='fitted', **big)
    assert 16 <= batches[-1] < 100 and batches[-1] == batches[-2]  # several batches, >= batch_size
    logs = {
        name: (tmp_path / 'out' / name / 'log.jsonl').read_text().splitlines()
        for name in ('whole', 'small', 'fitted')
    }
    # the counts exactly; the loss to float32's rounding of the logits, which a CPU's BLAS may do
    # differently for a batch of another size (one CPU did: 6e-10 relative; the mean of the batches'
    # means, which this guards against, differs far more)
    results = dict(whole=whole, small=small, fitted=fitted)
    for key, rel in (('val_loss', 1e-6), ('val_acc', 0.0), ('val_exact', 0.0)):
        series = [
            [results[name][key], *(json.loads(line)[key] for line in log)]
            for name, log in logs.items()
        ]
        for values in zip(*series, strict=True):
            assert max(values) - min(values) <= rel * abs(values[0]), (key, values)


def test_compute_dtype_names_what_a_device_runs():
    """dtype: float32 computes without autocast; bfloat16 autocasts (a CPU too); tf32 (TF32 tensor
    cores) is refused off CUDA, and a dtype not among devices.DTYPES is refused naming them."""
    from devices import DTYPES, compute_dtype

    name, ctx = compute_dtype({'dtype': 'float32'}, 'cpu')
    assert name == 'float32' and not isinstance(ctx, torch.autocast)
    name, ctx = compute_dtype({'dtype': 'auto'}, 'cpu')
    assert name == 'float32'
    name, ctx = compute_dtype({'dtype': 'bfloat16'}, 'cpu')
    assert name == 'bfloat16' and isinstance(ctx, torch.autocast)
    with pytest.raises(ConfigError, match='tf32 is a setting of CUDA'):
        compute_dtype({'dtype': 'tf32'}, 'cpu')
    with pytest.raises(ConfigError, match="'float32', 'tf32', 'bfloat16'"):
        compute_dtype({'dtype': 'float64'}, 'cpu')
    assert 'tf32' in DTYPES
