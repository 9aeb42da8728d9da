"""The full protocols of the MixiT reproductions against the authors' code (github
princeton-pli/MixiT; experiments/README.md, section 3), and of the identity-query reproduction
against its authors' (github MarkoKarbevski/Wqkv_necessity). Reference numbers are written from
their scripts and drivers, not read from experiments/harness/ or the experiments, so a change on
either side shows; every full run's keys must pass train.py's checks and build its model."""

import argparse
import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from data.loader import task_data
from experiments.harness import papers
from experiments.harness.common import experiment_module as load
from model import GPT, GPTConfig, VARIANTS
from configurator import MODEL_KEYS, resolve

# every driver of theirs: HF Trainer's AdamW, schedule to 0; N(0, 0.02) weights; biases
# (attention_bias = mlp_bias)
# their drivers: float32
ALL = dict(beta1=0.9, beta2=0.999, min_lr=0.0, scaled_init=False, bias=True, dtype='float32')
# task files, depth.py
DEPTH_PY = dict(weight_decay=1e-3, warmup_iters=500, lr_schedule='cosine', online=True)
# utils.TrainingArguments, trainer.py's "linear"
TRAINER_PY = dict(weight_decay=0.01, lr_schedule='linear')
# activation_cminus, np.sqrt(0.5), 512
MIXIT_BLOCK = dict(shaped_gate=-1.0, skip_scaling=0.5**0.5, base_width=512)
# README's trainer.py command; utils' 0.5
LM_MIXIT = dict(shaped_gate=-1.0, skip_scaling=0.5, base_width=512)
# trainer_classifier.py: np.sqrt(0.5), and no base_hidden_size passed: MixingLlamaConfig's 1.0
YELP_MIXIT = dict(shaped_gate=-1.0, skip_scaling=0.5**0.5, base_width=1)
TRAINER_CLASSIFIER_PY = dict(TRAINER_PY, classify=True)
# Wqkv_necessity's train.py: block_size, learning_rate, beta1, beta2, grad_clip, warmup_iters,
# lr_decay_iters, min_lr, eval_interval; its model.py: nanoGPT's GPT-2, bias=False, tied
WQKV_TRAIN_PY = dict(
    block_size=1024,
    learning_rate=6e-4,
    beta1=0.9,
    beta2=0.95,
    grad_clip=1.0,
    warmup_iters=2000,
    lr_decay_iters=600_000,
    min_lr=6e-5,
    eval_interval=1000,
)
WQKV_GPT2 = dict(
    n_layer=12, n_head=12, vocab_size=50304, norm='layernorm', mlp='gelu', pos='learned', bias=False
)


def has(config, **expected):
    """Every expected key has its value in the config, and the config passes train.py's checks."""
    resolve(config)
    for key, value in expected.items():
        assert (
            config.get(key) == pytest.approx(value)
            if isinstance(value, float)
            else config.get(key) == value
        ), f'{key}={config.get(key)!r}, expected {value!r}'


def sequence(config):
    """The length of the task's whole sequence, their m: the example (its input) and the answer
    after it."""
    module, settings, _ = task_data(resolve(config))
    keys = {k: v for k, v in settings.items() if k not in ('n_train', 'n_test', 'seed')}
    return module.generate(np.random.default_rng(0), 4, **keys)[0].shape[1] + 1


def trained_names(config, **small):
    """The names of the trained parameters of the config's model, built at a small size."""
    keys = {
        **VARIANTS[config['variant']],
        **{k: v for k, v in config.items() if k in MODEL_KEYS},
        **small,
    }
    return {n for n, p in GPT(GPTConfig(**keys)).named_parameters() if p.requires_grad}


def test_depth():
    depth = load('depth')
    assert depth.DEPTHS == [2, 8, 16]
    for d in depth.DEPTHS:
        mixit, random = depth.config('full', 'mixit', d), depth.config('full', 'random', d)
        for c in (mixit, random):
            has(c, task='addition', n_layer=d, n_embd=512, learning_rate=1e-2, **ALL, **DEPTH_PY)
            # 40M examples: 500 x train_size
            assert c['max_iters'] * c['batch_size'] == 500 * 80_000
            assert c['block_size'] == sequence(c) == 34
        # depth.sh, the task file's batch
        has(mixit, variant='mixit', n_head=128, batch_size=1000, **MIXIT_BLOCK)
        assert not mixit.get('frozen_blocks')  # depth.sh: weight_frozen=0
        # depth_array.sh's vanilla Llama
        has(random, variant='random', pos='rope', n_head=4, batch_size=128)
        assert 'shaped_gate' not in random and 'skip_scaling' not in random
    small = dict(n_embd=16, n_head=4, n_layer=2)
    assert trained_names(depth.config('full', 'random', 2), **small) == {
        'wte.weight',
        'lm_head.weight',
    }


def test_mixit_heads():
    heads = load('mixit_heads')
    assert heads.PROTOCOL['full']['sweep']['n_head'] == [4, 16, 64, 256]
    for task, train_size in (('addition', 80_000), ('dyck', 200_000)):
        for n_head in heads.PROTOCOL['full']['sweep']['n_head']:
            c = heads.config('full', task, n_head)
            has(
                c,
                task=task,
                variant='mixit',
                n_head=n_head,
                n_layer=2,
                n_embd=512,
                frozen_blocks=True,
                learning_rate=1e-2,
                batch_size=128,
                max_iters=500 * train_size // 128,
                **ALL,
                **DEPTH_PY,
                **MIXIT_BLOCK,
            )
            assert c['block_size'] == sequence(c)
        assert trained_names(c, n_embd=16, n_head=4) == {
            'wte.weight',
            'wpe.weight',
            'lm_head.weight',
        }
    assert heads.config('full', 'dyck', 4)['block_size'] == 83  # dyckstream_40: 2 * 40 + 3
    yelp = heads.config('full', 'yelp', 4)
    has(
        yelp,
        task='yelp',
        variant='mixit',
        n_layer=4,
        n_embd=1024,
        classify=True,
        learning_rate=5e-4,
        batch_size=256,
        warmup_iters=max(int(0.04 * yelp['max_iters']), 500),
        **YELP_MIXIT,
        **ALL,
        **TRAINER_PY,
    )
    assert not yelp.get('online') and not yelp.get('frozen_blocks')


def test_language_modeling():
    lm = load('language_modeling')
    assert lm.BATCH['full'] == 512
    for variant in lm.VARIANT_ORDER:
        c = lm.config('full', 'wikitext', variant)
        has(
            c,
            task='wikitext',
            variant=variant,
            n_layer=12,
            n_embd=512,
            n_head=8,
            block_size=256,
            learning_rate=5e-4,
            max_iters=40_000,
            warmup_iters=1_600,
            **ALL,
            **TRAINER_PY,
        )
        assert c['warmup_iters'] == max(int(0.04 * c['max_iters']), 500)
        if variant == 'mixit':
            has(c, **LM_MIXIT)
        else:
            assert 'skip_scaling' not in c and 'shaped_gate' not in c
    # their --scale_lr: off unless asked for, then MixiT's lr times (4 / 12) * (512 / 512)
    assert lm.fair.parse_args('', lm.add_flags, argv=[]).scale_lr is False
    assert lm.scale_lr(lm.config('full', 'wikitext', 'mixit'))['learning_rate'] == pytest.approx(
        5e-4 / 3
    )
    assert lm.scale_lr(lm.config('full', 'wikitext', 'standard'))['learning_rate'] == 5e-4


def test_rank_collapse():
    rc = load('rank_collapse')
    assert rc.PROTOCOL['full']['sweep']['n_layer'] == [2, 4, 8, 16, 32]
    for model in ('random', 'mixit'):
        c = rc.config('full', model, 8)
        has(
            c,
            task='wikitext',
            variant=model,
            n_layer=8,
            n_embd=512,
            n_head=8,
            block_size=256,
            learning_rate=5e-4,
            max_iters=40_000,
            warmup_iters=1_600,
            **ALL,
            **TRAINER_PY,
        )
        assert c['batch_size'] * c['gradient_accumulation_steps'] == 512
    has(rc.config('full', 'mixit', 8), **LM_MIXIT)
    has(rc.config('full', 'random', 8), pos='rope')


def test_rank_collapse_statistics():
    """token_statistics is the mean over i != j of torch.cov between token vectors, before and after
    the final norm."""
    rc = load('rank_collapse')
    model = GPT(GPTConfig(n_layer=2, n_embd=16, n_head=2, block_size=8, vocab_size=32))
    with torch.no_grad():
        # a trained-like gain: the output is not a rescaled input
        model.norm_f.weight.uniform_(0.5, 1.5)
    windows = torch.randint(32, (3, 8))
    stats = rc.token_statistics(model, windows, 'cpu')
    seen = []
    hook = model.norm_f.register_forward_hook(lambda m, i, o: seen.append((i[0], o)))
    with torch.no_grad():
        model(windows)
    hook.remove()
    off = ~torch.eye(8, dtype=torch.bool)
    for key, h in zip(('cov in', 'cov out'), seen[0]):
        assert stats[key] == pytest.approx(
            torch.stack([torch.cov(w)[off].mean() for w in h]).mean().item(), rel=1e-4
        )
    corr = torch.stack([torch.corrcoef(w)[off].mean() for w in seen[0][1]]).mean().item()
    assert stats['corr out'] == pytest.approx(corr, rel=1e-4)


def test_throughput():
    tp = load('throughput')
    for variant in ('standard', 'frozen_qk', 'mixit'):
        has({**tp.SETTINGS[variant], 'task': 'wikitext'}, variant=variant, **ALL, **TRAINER_PY)
    has(tp.SETTINGS['mixit'], **LM_MIXIT)
    assert 'skip_scaling' not in tp.SETTINGS['standard']
    model = tp.trainer(
        'mixit',
        dict(n_layer=1, n_head=2, n_embd=16, block_size=8, vocab_size=32),
        1,
        'cpu',
        'float32',
    )[0]
    assert (model.config.skip_scaling, model.config.shaped_gate, model.config.bias) == (
        0.5,
        -1.0,
        True,
    )
    # a speed-up pairs the steps of one repeat: ratios 2, 4, 1 -> 2 (the medians' ratio, 3.0 / 1.0,
    # would be 3)
    times = {'standard': [2.0, 4.0, 3.0], 'frozen_qk': [1.0, 2.0, 1.5], 'mixit': [1.0, 1.0, 3.0]}
    memory = {
        v: dict(flops_per_token=f, trained=1, total=1, memory_bytes=0, update_bytes=0)
        for v, f in (('standard', 5.0), ('frozen_qk', 4.0), ('mixit', 4.0))
    }  # predicted speed-up 1.25
    rows, speedups = tp.rows_of('c', 1, 1, memory, times, None)
    assert speedups == {'standard': 1.0, 'frozen_qk': 2.0, 'mixit': 2.0}
    # statistics.quantiles' default ('exclusive')
    q1, q3 = np.percentile([2, 4, 1], [25, 75], method='weibull')
    # the median's standard error, sd from the quartiles
    se = 1.2533 * (q3 - q1) / 1.349 / 3**0.5 / 0.25 * 100
    assert [r['share of predicted gain'] for r in rows] == ['', '400% ± 0', f'400% ± {se:.0f}']


def test_retrieval_protocols():
    """induction.py, retrieval_vs_length.py and induction_heads_map.py run their depth.py task
    condattendstream (vocabulary 512, the query token of their format) with its driver; k-hop keeps
    Table 8's setting."""
    induction, curve, heads_map = (
        load('induction'),
        load('retrieval_vs_length'),
        load('induction_heads_map'),
    )
    runs = [induction.config('full', 'retrieval', v) for v in induction.VARIANT_ORDER]
    runs += [
        curve.config('full', m, v)
        for m in curve.PROTOCOL['full']['sweep']['m_max']
        for v in curve.VARIANT_ORDER
    ]
    runs += [heads_map.config('full')]
    for c in runs:
        has(
            c,
            task='retrieval',
            vocab=512,
            n_layer=2,
            n_embd=1024,
            n_head=4,
            learning_rate=1e-2,
            batch_size=1000,
            max_iters=100_000,
            **ALL,
            **DEPTH_PY,
        )
        assert (
            resolve(c)['format'] == 'authors'
            and c['block_size'] == sequence(c) == 2 * c['m_max'] + 3
        )
        if c['variant'] == 'mixit':
            has(c, **MIXIT_BLOCK)
    assert [c['m_max'] for c in runs[:4]] == [30] * 4 and heads_map.config('full')[
        'variant'
    ] == 'frozen_qk'
    has(
        induction.config('full', 'khop', 'mixit'),
        n_layer=5,
        n_embd=512,
        n_head=8,
        learning_rate=1e-4,
        batch_size=128,
        max_iters=5000,
    )
    # the quick setting fits the authors' format (V/2 + 2M <= V)
    for m_max in curve.PROTOCOL['quick']['sweep']['m_max']:
        assert sequence(curve.config('quick', m_max, 'standard')) == 2 * m_max + 3


def test_retrieval_regime_protocols():
    """--regime of the three retrieval files is one setting, papers.RETRIEVAL_REGIME, whose steps
    are retrieval_vs_length's per_param_steps (the authors' 2.89 examples per trained parameter at
    quick's width) and reach the full protocol's regime; induction's k-hop keeps the paper's 5,000
    steps of 128 over 100,000 strings at 2 layers, k up to 2."""
    induction, curve, heads_map = (
        load('induction'),
        load('retrieval_vs_length'),
        load('induction_heads_map'),
    )
    assert papers.RETRIEVAL_REGIME['max_iters'] == curve.PAPER_STEPS
    runs = [curve.config('regime', m, v) for m in (4, 8) for v in curve.VARIANT_ORDER]
    runs += [induction.config('regime', 'retrieval', v) for v in induction.VARIANT_ORDER]
    runs += [heads_map.config('regime')]
    for c in runs:
        has(c, **{**ALL, **DEPTH_PY, **papers.RETRIEVAL_REGIME})
        assert c['block_size'] == sequence(c) == 2 * c['m_max'] + 3
    assert [c['m_max'] for c in runs[8:]] == [4] * 5
    has(
        induction.config('regime', 'khop', 'mixit'),
        n_layer=2,
        max_hops=2,
        length=15,
        batch_size=128,
        max_iters=5000,
        n_train=100_000,
    )
    for mod in (induction, curve, heads_map):
        assert all(r['ours'] >= r['paper'] for r in mod.REGIME['regime'])


def test_retrieval_score_reads_the_authors_query_token():
    """In the authors' format the query is its own token, V/2 + m_max + k, not the key's V/2 + k:
    the retrieval score must find the matching key all the same (V = 16, m_max = 3: keys 8..10,
    query tokens 11..13)."""
    heads_map = load('induction_heads_map')
    # k0 3 k2 5 q2 5: the query asks for key 2, value at position 3
    x = torch.tensor([[8, 3, 10, 5, 13, 5, 0, 0]])
    y = torch.full_like(x, -1)
    y[0, 4] = 5
    maps = torch.zeros(2, 1, 2, 8, 8)  # (layer, batch, head, T, T)
    maps[1, 0, 0, 4, 3] = 1.0  # layer 2, head 0: the query reads the value after the matching key
    maps[1, 0, 1, 4, 1] = 1.0  # head 1: the other value
    *_, retrieve = heads_map.scores(maps, x, y, query_offset=3)
    assert retrieve[1].tolist() == [1.0, 0.0]


def test_previous_token_score_at_the_values_is_the_values_own():
    """The previous-token score at the values averages each value's attention to the key before it
    (odd positions before the query), the other over every real token: a brute force by position
    (k0 3 k2 5 q, the query at 4)."""
    heads_map = load('induction_heads_map')
    x = torch.tensor([[8, 3, 10, 5, 10, 5, 0, 0]])
    y = torch.full_like(x, -1)
    y[0, 4] = 5
    maps = torch.rand(1, 1, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    prev, at_values, _ = heads_map.scores(maps, x, y)
    back = [float(maps[0, 0, 0, i, i - 1]) for i in range(1, 5)]  # positions 1..4, the query's
    assert abs(float(at_values) - (back[0] + back[2]) / 2) < 1e-6  # values at 1 and 3
    assert abs(float(prev) - sum(back) / 4) < 1e-6


def test_algorithmic():
    """Table 3: each task with the driver the authors run it with, Table 8's architecture (paper
    text)."""
    alg = load('algorithmic')
    drivers = {
        'addition': DEPTH_PY,
        'dyck': DEPTH_PY,
        'yelp': TRAINER_CLASSIFIER_PY,
        'modular_addition': dict(
            weight_decay=1e-3, warmup_iters=50, lr_schedule='cosine'
        ),  # modadd_exp.py
        'memorization': dict(weight_decay=1e-4, warmup_iters=500, lr_schedule='cosine'),
    }  # hdmemorize_exp.py
    own = {
        'addition': dict(
            learning_rate=1e-2, batch_size=128, max_iters=500 * 80_000 // 128
        ),  # 40M examples
        'dyck': dict(
            learning_rate=1e-2, batch_size=512, max_iters=500 * 200_000 // 512
        ),  # 100M examples
        'modular_addition': dict(learning_rate=1e-3, batch_size=4_000, max_iters=20_000),
        'memorization': dict(learning_rate=5e-3, batch_size=32_768, max_iters=10_000),
        'yelp': dict(learning_rate=5e-4, batch_size=256, warmup_iters=500),
    }
    for task in alg.PAPER:  # Table 3's rows
        runs = {v: alg.config('full', task, v) for v in alg.PROTOCOL['full']['sweep']['variant']}
        assert list(runs) == alg.VARIANT_ORDER
        for variant, c in runs.items():
            has(c, task=task, variant=variant, **ALL, **drivers[task], **own[task])
            assert not c.get('frozen_blocks')  # Table 3 trains every weight (their weight_frozen=0)
            # memorization has no generator: [x, y + n, label]
            if task not in ('yelp', 'memorization'):
                assert c['block_size'] == sequence(c)
            assert c.get('block_size') == {'memorization': 3, 'yelp': None}.get(
                task, c.get('block_size')
            )
            if variant == 'mixit':
                has(c, **(YELP_MIXIT if task == 'yelp' else MIXIT_BLOCK))
            else:
                assert 'shaped_gate' not in c
    defaults = {t: resolve(dict(task=t)) for t in ('addition', 'dyck', 'modular_addition')}
    assert (defaults['addition']['format'], defaults['addition']['digits']) == ('authors', 10)
    # dyckstream_40: 40 pairs
    assert (defaults['dyck']['format'], defaults['dyck']['length']) == ('authors', 80)
    assert (defaults['modular_addition']['p'], defaults['modular_addition']['train_frac']) == (
        199,
        0.95,
    )


def test_memorization_capacity():
    """Table 4: hdmemorize_exp.py's batch min(n^2, 256 * 128), 10,000 steps, lr 0.005, weight decay
    1e-4."""
    mem = load('memorization_capacity')
    runs = {label: mem.config('full', label) for label in mem.PROTOCOL['full']['sweep']['variant']}
    for label, c in runs.items():
        has(
            c,
            task='memorization',
            size=512,
            n_layer=2,
            n_embd=128,
            n_head=4,
            block_size=3,
            batch_size=32_768,
            max_iters=10_000,
            learning_rate=5e-3,
            weight_decay=1e-4,
            warmup_iters=500,
            lr_schedule='cosine',
            **ALL,
        )
    has(runs['mixit'], variant='mixit', **MIXIT_BLOCK)
    # Eq. 2.3, T = 3
    has(runs[mem.PLAIN], variant='mixit', mixit_sink=False, mixit_std=1 / (3 * 32) ** 0.5)
    # paper text: "for a fair comparison across models" Table 4 pins L, heads, width, 10,000 steps
    # and lr 0.005 (outside Table 7's memorization range): the full search is that one point, the
    # comparison its seeds
    args = mem.fair.parse_args('', argv=[])
    assert mem.fair.grid(args, runs['mixit'], 'memorization', mem.FIXED) == [{}]
    assert 'shaped_gate' not in runs[mem.PLAIN] and 'shaped_gate' not in runs['frozen_qk']


def test_identity_query(tmp_path):
    """Table 2 as Wqkv_necessity runs it: configs/configurator_creator.ipynb's five models (width,
    MLP hidden size, attention scale, weight decay), train.py's settings and batch (12 sequences, 5
    x 8 x 12 // 12 = 40 accumulated), the loss read at 100,000 steps (Table 2's), and
    Generate_Indices.ipynb's two window files, drawn here as the notebook draws them."""
    iq = load('identity_query')
    models = {  # configurator_creator.ipynb: n_embd, mlp_hidden_size, scale, weight_decay
        'baseline (124M)': (768, 768 * 4, 1 / math.sqrt(768 // 12), 0.1),
        'baseline, 3.5x MLP': (768, int(768 * 3.5), 1 / math.sqrt(768 // 12), 0.1),
        'baseline, smaller d_model': (744, 744 * 4, 1 / math.sqrt(744 // 12), 0.1),
        'W_Q = I (117M)': (768, 768 * 4, 1 / (2 * math.sqrt(768 // 12)), 2**-5),
        'W_Q = I, 4.5x MLP': (768, int(768 * 4.5), 1 / (2 * math.sqrt(768 // 12)), 2**-5),
    }
    assert list(models) == list(iq.PROTOCOL['full']['sweep']['variant'])
    for label, (width, hidden, scale, weight_decay) in models.items():
        c = iq.config('full', label)
        has(c, task='openwebtext', n_embd=width, weight_decay=weight_decay, max_iters=100_000)
        has(c, train_indices='train_indices.npy', eval_indices='eval_val_indices.npy')
        has(c, **WQKV_GPT2, **WQKV_TRAIN_PY)
        assert c.get('tie_embeddings') and not c.get('dropout')
        with torch.device('meta'):
            model = GPT(
                GPTConfig(
                    **{**VARIANTS[c['variant']], **{k: v for k, v in c.items() if k in MODEL_KEYS}}
                )
            )
        block = model.h[0]
        assert block.mlp.up_proj.weight.shape[0] == hidden
        assert block.attn.scale == pytest.approx(scale)
        assert block.attn.identity_query == label.startswith('W_Q = I')
    micro = argparse.Namespace(mode='full', micro_batch=12)
    assert iq.common.batch_keys(micro, iq.BATCH['full']) == dict(
        batch_size=12, gradient_accumulation_steps=5 * 8 * 12 // 12
    )
    # --paper_text: batches drawn from (seed, step), the whole split every 5,000 steps (ours)
    text = iq.config('full', 'W_Q = I (117M)', paper_text=True)
    has(text, eval_interval=5000, train_indices='', eval_indices='', max_iters=100_000)
    # Generate_Indices.ipynb on a corpus of these sizes: cell 1, then cell 2 (its first draw is
    # their eval_train_indices.npy, unused); 3 of train_indices' 600,000 rows, a generator's
    # first draws
    n = dict(train=9_035_582_489, val=4_434_606)  # their notebook's sizes
    (tmp_path / 'meta.json').write_text(json.dumps(dict(tokens=n)))
    iq.authors_indices(tmp_path, 3)
    gen = torch.Generator(device='cpu')
    gen.manual_seed(42)
    ix_train = torch.randint(n['train'] - 1024, (3, 5 * 8 * 12), device='cpu', generator=gen)
    gen = torch.Generator(device='cpu')
    gen.manual_seed(42)
    torch.randint(n['train'] - 1024, (600000 // 1000, 200 * 12), device='cpu', generator=gen)
    ix_val = torch.randint(n['val'] - 1024, (600000 // 1000, 200 * 12), device='cpu', generator=gen)
    assert np.array_equal(np.load(tmp_path / 'train_indices.npy'), ix_train.numpy())
    gen.manual_seed(42)  # the first rows of more rows are the same: the draws come in order
    assert torch.equal(ix_train, torch.randint(n['train'] - 1024, (1000, 480), generator=gen)[:3])
    assert np.array_equal(np.load(tmp_path / 'eval_val_indices.npy'), ix_val.numpy())
    # precision: their bfloat16 autocast (train.py's dtype and ctx), this file's default in full
    for mode, dtype in (('full', 'bfloat16'), ('smoke', 'float32')):
        argv = [f'--{mode}'] if mode != 'full' else []
        done = subprocess.run(
            [
                sys.executable,
                str(iq.__file__),
                '--plan',
                f'--out_dir={tmp_path / mode}',
                f'--data_dir={tmp_path / "data"}',
                *argv,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        plan = json.loads((tmp_path / mode / 'identity_query-plan.json').read_text())
        assert {r['dtype'] for r in plan['runs']} == {dtype}


def test_the_khop_regime_is_the_shortest_whose_problem_is_the_papers():
    """induction.py's --regime k-hop length: its problem within PROBLEM's factor of the paper's
    (harness/problems.py, from the generator), one letter shorter not."""
    from experiments.harness import claims, problems

    induction = load('induction')
    modes = induction.PROBLEM['modes']
    prefix = 'k-hop induction heads: '
    rows = [r for r in problems.rows(induction.PROBLEM, 'regime') if r['of'] == prefix]
    assert rows and not any(claims.off_problem(r) for r in rows)
    shorter = dict(modes['regime'][prefix], length=modes['regime'][prefix]['length'] - 1)
    declared = dict(induction.PROBLEM, modes={**modes, 'regime': {prefix: shorter}})
    assert any(claims.off_problem(r) for r in problems.rows(declared, 'regime'))
