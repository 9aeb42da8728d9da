"""
Table 6 of "Is Random Attention Sufficient?": the covariance between the last layer's
representations of different tokens of one sequence, for the random transformer (Zhong & Andreas:
only the embeddings and the LM head trained) and MixiT, at depths 2, 4, 8, 16, 32: it grows with
depth for the random transformer (representation / rank collapse) and stays small and flat for
MixiT. The paper's covariance, in units of 1e-2, PAPER:

| depth | 2 | 4 | 8 | 16 | 32 |
|---|---|---|---|---|---|
| random transformer | 0.218 | 1.450 | 2.075 | 1.946 | 5.438 |
| MixiT | 0.088 | 0.260 | 0.210 | 0.154 | 0.104 |

Claims: CLAIMS below, judged by claims.judge. Metric (ours: their repository has no code for this
table, the paper one sentence: "calculated between the last layer hidden representations within a
sequence ..., then averaged across sequences"): per held-out window, H (T x n) is the final
RMSNorm's input, hooked on model.norm_f (experiments/README.md, section 3: the paper's 1e-3 to 1e-2
are magnitudes of un-normalized states at its width); the covariance of tokens i and j over the n
features (torch.cov of H's rows), its mean over i != j, averaged over windows, in units of 1e-2.
Beside it the mean correlation of the norm's output (what the LM head reads). Each at
initialization (the model before any step) and after training, each trained model at its own best
(fair.fair_sweep per model, on validation log perplexity).

Settings, each from one place:
- PROTOCOL below: the models, depths, width, heads, block, batch, steps and learning rate;
- its driver, 'trainer.py', a key of papers.DRIVERS: its optimizer and schedule, which
  papers.authors applies;
- the search: papers.TABLE7['language_modeling'] less FIXED (fair.grid), i.e. Table 7's
  language-modeling row but the layers, the width and heads (the statistic's) and Table 8's batch,
  at SEARCH_AT's depth (full: every trained depth); --quick searches the learning rate alone, times
  fair.QUICK_LR (1/3, 1, 3).

Full protocol: the authors' code (github princeton-pli/MixiT, experiments/README.md, section 3)
unless marked; Table 8's language-modeling setting (paper text, README):

| setting | full |
|---|---|
| MixiT | as their trainer.py builds it: their block, gate c = -1, skip scaling 0.5 |
| random transformer | their Llama (RoPE), only token embedding and LM head trained (1) |
| depths | 2, 4, 8, 16, 32 (paper text), each trained |
| optimizer (trainer.py) | AdamW (0.9, 0.999), wd 0.01, N(0, 0.02), biases, float32 |
| schedule | warm-up max(4%, 500) = 1,600, linear decay to 0; lr 5e-4 (--no-search) |
| size, budget | width 512, 8 heads, block 256; batch 512 (64 x 8), 40,000 steps |
| data (ours) | WikiText-103 in GPT-2 tokens, contiguous windows (2) |
| statistics | over 256 held-out windows |

(1) depth.py's weight_frozen=1, as trainer.py cannot freeze the blocks: variant random,
pos='rope'. (2) Their tokenizer needs the Hub; prepared first (`python data/wikitext/prepare.py`).
The paper's regime (REGIME, tokens_per_param(): training tokens per trained parameter, each model
at its trained depth with the fewest, each mode's beside the paper's): 40,000 steps x 512 x 256 =
5.24e9 token positions; the random transformer trains 2 x 128,256 x 512 = 131.3M parameters (their
Llama-3.2 vocabulary), 39.9 tokens each at every depth; MixiT 37.8 at depth 2, 21.0 at 32 (its
blocks' parameters grow with depth). Ours in full (GPT-2's 50,257 tokens): 101.9 and 31.0.

--quick (ours unless marked) cannot keep that regime at any size that tests the claim. Its width
stays 512: each N(0, 0.02) linear of the random transformer's blocks scales its output's variance
by 0.02^2 n, so the statistic's magnitude and the claims' 1e-2 are the width's; depth is the
table's variable. There the byte-level random transformer trains 2 x 257 x 512 = 263,168
parameters: 39.9 tokens each are 10.5M, one depth-2 run alone 80 min (0.47 ms a token), and 40,000
steps take 2.7 hours at depth 2. So --quick is the largest protocol that fits 20 minutes, with a
TREND beside it:

| setting | --quick | from |
|---|---|---|
| width, heads, block | 512, 8, 256 | the paper's (above) |
| data | the 'text' task at byte level of --text | default Debian's license texts |
| at initialization | every depth, both models, each seed | |
| trained depths | 2 and 8 | 16 and 32 would take the budget alone |
| steps x batch | 100 x 2 windows | 0.19 tokens a parameter: 0.5% of the paper's |
| warm-up | 4% | the paper's share; their 500 would outlast the run |
| lr | 1.5e-3, the search's centre | short runs favour larger steps |
| search | at depth 2, reused at 8; validated on 16 windows | |
| statistics | over the first 4 held-out windows | |

- Time, estimated before any run from per-step times measured at this size at 1 thread (random
  0.24 / 1.0 s at depth 2 / 8, MixiT 0.32 / 1.2 s): 100 steps x (6 runs at depth 2 + 3 at 8) per
  model, 16.6 min, and 2 min of models at initialization, checkpoints and statistics: 18.6 min at
  1 thread (about 11 at 2).
- TREND: 100 / 250 / 625 steps (0.19 / 0.49 / 1.22 tokens per parameter), the budget being where
  --quick departs most; one seed and run a model and depth: 975 steps x 2.76 s + 1.5 min a size,
  49 min.
- --smoke: a tiny text under DATA_DIR, depths 2, 4, 8 (2 and 4 trained), width 16, 2 steps.

No --regime: no size that tests the claims trains in the paper's regime within an hour on 2 cores,
so this file's verdict on a CPU is Not resolved, its --quick and TREND a preview. The smallest
problem that tests them is --quick's: width 512 (the claims' 1e-2 is the width's), depths 2 and 8
(the rise needs two), both models, 3 seeds. There, at 2 windows of 256 bytes a step
(reproduce.py's FLOPs of each run): the random transformer's 39.9 tokens per trained parameter
(263,168) are 20,519 steps, 3.77e14 FLOPs at depth 2 and 1.48e15 at 8; MixiT's 21.0 (the paper's
fewest; 7.7M trained parameters at depth 2) are 318,550 steps at depth 2 alone, 7.5e15 FLOPs.
--quick's 7.47e13 FLOPs took 618 s (121 GFLOP/s): the random transformer alone, 3 seeds at depths
2 and 8 without a search, is 5.6e15 FLOPs, 12.8 hours; one seed at depth 2 alone 52 minutes; MixiT
at depth 2 alone 17 hours. A narrower model would change the magnitude the claims bound, and a
shorter sequence the token pairs they average over, neither the tokens a parameter needs.
"""

import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from checkpoint import load_checkpoint
from experiments.harness import claims, common, fair
from model import GPT, GPTConfig
from train import pick_device, model_args_of, resolve

NAME = 'rank_collapse'
PAPER = {
    'random': {2: 0.218, 4: 1.450, 8: 2.075, 16: 1.946, 32: 5.438},
    'mixit': {2: 0.088, 4: 0.260, 8: 0.210, 16: 0.154, 32: 0.104},
}
# full: the layers (Table 6's variable), the width and heads (the statistic's) and Table 8's batch
# stay; Table 7's language-modeling row searches the rest, the learning rate
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')
# their random transformer: a plain Llama, with RoPE
MODELS = {'random': dict(pos='rope'), 'mixit': {}}


def schedule(steps):
    """train.py's keys of a --quick run of `steps` steps: a 4% warm-up (the paper's 1,600 of 40,000
    steps), one evaluation at the end."""
    return dict(max_iters=steps, warmup_iters=round(0.04 * steps), eval_interval=steps)


# the models (the table's rows), then the depths, each measured at initialization; the authors'
# trainer.py driver
PROTOCOL = {
    'full': dict(
        driver='trainer.py',
        keys=dict(
            task='wikitext',
            n_embd=512,
            n_head=8,
            block_size=256,
            batch_size=64,
            gradient_accumulation_steps=8,
            max_iters=40_000,
            learning_rate=5e-4,
            eval_interval=2000,
        ),
        sweep=dict(variant=MODELS, n_layer=[2, 4, 8, 16, 32]),
    ),
    'quick': dict(
        driver='trainer.py',
        keys=dict(
            task='text',
            encoding='bytes',
            n_embd=512,
            n_head=8,
            block_size=256,
            batch_size=2,
            **schedule(100),
            learning_rate=1.5e-3,
            eval_examples=16,
        ),
        sweep=dict(variant=MODELS, n_layer=[2, 4, 8, 16, 32]),
    ),
    'smoke': dict(
        driver='trainer.py',
        keys=dict(
            task='text',
            encoding='bytes',
            n_embd=16,
            n_head=2,
            block_size=16,
            batch_size=4,
            max_iters=2,
            learning_rate=3e-3,
            warmup_iters=0,
            eval_interval=2,
        ),
        sweep=dict(variant=MODELS, n_layer=[2, 4, 8]),
    ),
}

# --quick's budget against the paper's 40,000 steps of 512 x 256 tokens (docstring): 2.5 and 6.25
# times its steps, each size labelled with its training tokens per trainable parameter of the random
# transformer (2 x 257 x 512 at byte level; the paper's 39.9); each size's keys replace --quick's in
# every run (experiments/tools/trend.py)
TREND = dict(
    axis='training steps (tokens per parameter of the random transformer)',
    sizes={
        f'{n} ({n * 2 * 256 / (2 * 257 * 512):.2f})': {} if n == 100 else schedule(n)
        for n in (100, 250, 625)
    },
)

# The paper's regime (harness/claims.py's standing; docstring): training tokens per trained
# parameter, each model at the trained depth where it has the fewest (MixiT's grow with depth), the
# paper's counted with its Llama-3.2 vocabulary of 128,256 at its depths
PAPER_VOCAB = 128_256


def tokens_per_param(mode, model, **keys):
    """The fewest training tokens per trained parameter of `model` over the depths `mode` trains
    (`keys`: replacing the mode's, as the paper's vocabulary)."""

    def per_param(depth):
        c = {**config(mode, model, depth), **keys}
        tokens = c['max_iters'] * c['batch_size'] * c.get('gradient_accumulation_steps', 1)
        return tokens * c['block_size'] / common.trained_params(c)

    return min(per_param(d) for d in TRAINED[mode])


# per mode: the depths trained, the depth the search runs at (its choice reused at the others; None:
# every trained depth) and the held-out windows the statistics average over
TRAINED = {'full': [2, 4, 8, 16, 32], 'quick': [2, 8], 'smoke': [2, 4]}
SEARCH_AT = {'full': None, 'quick': 2, 'smoke': 2}
N_WINDOWS = {'full': 256, 'quick': 4, 'smoke': 4}


def covariance(model, depth, when='trained'):
    """The label of a covariance in report's values: the final norm's input (the table's quantity),
    one per seed."""
    return f'{model}, depth {depth}: covariance ({when})'


# The paper's claims (Table 6 and its text: the covariance "for the random transformer steadily
# increases with respect to model size, ... remains steady for MixiT"), on the trained models, as
# Table 6's are (the values at initialization are reported beside, untested). Each mode tests the
# depths it trains. Why these tests:
# - the random transformer's rise, its seeds at each depth above the shallower one's, at depths 2,
#   8, 32: Table 6's own values dip from 8 to 16 (2.075, 1.946), so its "steadily increases" holds
#   across factors of 4 in depth;
# - MixiT's "remains steady" across the depths a mode trains (claims.similar): on every seed, its
#   covariances' spread over those depths (largest less smallest, relative to their mean) within
#   Table 6's own spread of MixiT at the same depths (0.088 to 0.260 over all five: 105%; 0.088
#   and 0.210 at 2 and 8: 82%), where the random transformer's spreads 185%;
# - MixiT below the random transformer at the deepest depth trained (Table 6, depth 32: 0.104
#   against 5.438).
def table6(trained, rise):
    """CLAIMS of a mode that trains the depths `trained`, the random transformer's rise tested at
    the depths `rise`."""
    return [
        dict(
            says="the random transformer's covariance increases with depth",
            test='ascending',
            fmt='num',
            of=[covariance('random', d) for d in rise],
        ),
        claims.similar(
            "MixiT's covariance remains steady with depth (Table 6: "
            + ', '.join(f'{PAPER["mixit"][d]}' for d in trained)
            + ' at depths '
            + ', '.join(f'{d}' for d in trained)
            + ')',
            [covariance('mixit', d) for d in trained],
            [PAPER['mixit'][d] for d in trained],
            fmt='num',
        ),
        dict(
            says="MixiT's covariance is below the random transformer's at the deepest depth",
            test='descending',
            fmt='num',
            of=[covariance(model, trained[-1]) for model in ('random', 'mixit')],
        ),
    ]


CLAIMS = {
    'full': table6(TRAINED['full'], [2, 8, 32]),
    'quick': table6(TRAINED['quick'], TRAINED['quick']),
    'smoke': table6(TRAINED['smoke'], TRAINED['smoke']),
}


def config(mode, model, depth):
    """train.py's keys of one run but its data_dir."""
    return common.config(PROTOCOL[mode], variant=model, n_layer=depth)


REGIME = {
    mode: [
        dict(
            quantity=f'training tokens per trained parameter, {name} at the trained depth with '
            'the fewest',
            ours=tokens_per_param(mode, model),
            paper=tokens_per_param('full', model, vocab_size=PAPER_VOCAB),
        )
        for model, name in (('random', 'the random transformer'), ('mixit', 'MixiT'))
    ]
    for mode in PROTOCOL
}


def add_flags(parser):
    parser.add_argument(
        '--text',
        default='',
        help='--quick: a UTF-8 file to train on at byte level; '
        "'' = /usr/share/common-licenses/* concatenated",
    )


@torch.no_grad()
def token_statistics(model, windows, device, batch=16):
    """-> {'cov in', 'cov out', 'corr out'}: means over the windows of the mean over i != j of
    cov(h_i, h_j) for h the final norm's input and output (the last layer's representation the LM
    head reads), and of corr(h_i, h_j) for its output; statistics over the n features."""
    model.eval().to(device)
    captured = []
    hook = model.norm_f.register_forward_hook(
        lambda module, inputs, output: captured.append((inputs[0], output))
    )
    stats = {'cov in': [], 'cov out': [], 'corr out': []}
    try:
        for x in windows.split(batch):
            captured.clear()
            model(x.to(device))
            for where, h in zip(('in', 'out'), captured[0]):
                h = h.float()  # (B, T, n)
                h = h - h.mean(-1, keepdim=True)
                # (B, T, T) = torch.cov of each window's rows
                cov = h @ h.transpose(1, 2) / (h.shape[-1] - 1)
                off = ~torch.eye(h.shape[1], dtype=torch.bool, device=h.device)
                stats[f'cov {where}'].append(cov[:, off].mean(-1))
            # cov: the output's, the loop's last
            std = cov.diagonal(dim1=1, dim2=2).clamp_min(1e-30).sqrt()
            stats['corr out'].append((cov / (std[:, :, None] * std[:, None, :]))[:, off].mean(-1))
    finally:
        hook.remove()
    return {k: torch.cat(v).mean().item() for k, v in stats.items()}


def main():
    args = fair.parse_args(__doc__, add_flags)
    if args.mode not in PROTOCOL:  # --regime: none fits a CPU (docstring)
        raise common.ConfigError(
            "no --regime: the paper's regime takes hours at the smallest size that tests the "
            'claims (the docstring), so the verdict on a CPU is Not resolved; --quick previews it'
        )
    protocol, trained_depths, at = PROTOCOL[args.mode], TRAINED[args.mode], SEARCH_AT[args.mode]
    block = protocol['keys']['block_size']
    if args.mode == 'full':
        directory, data = (
            common.corpus_dirs(args, ['wikitext'], 'run this script with --quick')[0],
            {},
        )
    else:
        directory = common.byte_text(args, NAME)
        data = dict(data_dir=str(directory))
    # the runs first (with --plan, listed and not trained): per model the search at `at` alone
    # (None: at every trained depth), its choice reused at the others (docstring)
    sweeps = {
        model: fair.fair_sweep(
            args,
            NAME,
            {d: {**config(args.mode, model, d), **data} for d in trained_depths},
            at,
            'language_modeling',
            FIXED,
            key='val_loss',
            higher=False,
        )
        for model in PAPER
    }
    if args.plan:
        return common.write_plan(args, NAME)
    meta = json.loads((directory / 'meta.json').read_text())
    val = np.memmap(directory / 'val.bin', dtype=np.uint16, mode='r')
    n_windows = min(N_WINDOWS[args.mode], len(val) // block)
    windows = torch.from_numpy(val[: n_windows * block].astype(np.int64)).view(n_windows, block)
    device = pick_device(args.device)

    def three(x):
        return f'{x:.3f}'

    def cov(x):  # in units of 1e-2, the paper's
        return f'{100 * x:.3f}'

    rows, fairs, statistics, values = [], {}, {}, {}
    for model, results in sweeps.items():
        for depth in protocol['sweep']['n_layer']:
            label = f'{model}, depth {depth}'
            # a run's model before its first step, on each seed: a function of its config (train.py
            # builds it so)
            init = [
                token_statistics(
                    GPT(
                        GPTConfig(
                            **model_args_of(
                                resolve({**config(args.mode, model, depth), **data, 'seed': s}),
                                meta,
                                block,
                            )
                        )
                    ),
                    windows,
                    device,
                )
                for s in range(args.seeds)
            ]
            trained, runs = [], results[depth]['runs'] if depth in results else []
            for m in runs:
                ckpt = load_checkpoint(Path(m['run_dir']) / 'ckpt.pt')
                net = GPT(GPTConfig(**ckpt['model_args']))
                net.load_state_dict(ckpt['model'])
                trained.append(token_statistics(net, windows, device))
            if depth in results:
                fairs[label] = results[depth]
            statistics[label] = dict(init=init, trained=trained)
            values[covariance(model, depth, 'init')] = [s['cov in'] for s in init]
            if trained:
                values[covariance(model, depth)] = [s['cov in'] for s in trained]
            untrained = f'not trained in --{args.mode}'
            rows.append(
                {
                    'model': model,
                    'depth': depth,
                    'paper x1e-2': f'{PAPER[model][depth]:.3f}',
                    'cov x1e-2, norm input (init)': fair.spread([s['cov in'] for s in init], cov),
                    'cov x1e-2, norm input (trained)': fair.spread(
                        [s['cov in'] for s in trained], cov
                    )
                    if trained
                    else untrained,
                    'correlation, norm output (init)': fair.spread(
                        [s['corr out'] for s in init], three
                    ),
                    'correlation, norm output (trained)': fair.spread(
                        [s['corr out'] for s in trained], three
                    )
                    if trained
                    else untrained,
                    'val log ppl (trained)': fair.spread([m['val_loss'] for m in runs], three)
                    if runs
                    else '',
                }
            )
    corpus = (
        'WikiText-103, GPT-2 tokens'
        if args.mode == 'full'
        else 'byte-level text '
        f'({"smoke file" if args.mode == "smoke" else args.text or "common-licenses"})'
    )
    budget = ', '.join(
        f'{k}={v:.4g}' if isinstance(v, float) else f'{k}={v}'
        for k, v in {**protocol['keys'], **args.at}.items()
    )
    notes = (
        f"Data: {corpus}. Every run: {budget}, through the authors' trainer.py settings "
        '(papers.authors; the '
        f'random transformer with RoPE). Statistics over the first {n_windows} held-out windows of '
        f'{block} tokens, on each of {args.seeds} seed(s), mean ± std (min–max) over the seeds: '
        'the mean over token '
        "pairs i != j of the covariance (over the features) of the final norm's input, the last "
        "block's un-normalized output (the paper's quantity, experiments/README.md section 3), and "
        'of the correlation '
        'of its output; "init" is the same model before training. Trained depths: '
        f'{", ".join(map(str, trained_depths))}; val log ppl: held-out log perplexity of the '
        'trained models.'
    )
    if at and args.search:
        notes += (
            f' The learning rate is searched at depth {at} only and reused at the other trained '
            'depths '
            "(their grid: '-')."
        )
    fair.report(
        args,
        NAME,
        'Table 6: covariance between token representations of the last layer',
        list(rows[0]),
        rows,
        fairs,
        notes=notes,
        extra={'statistics': statistics},
        fmt=three,
        key='val_loss',
        values=values,
        claims=CLAIMS[args.mode],
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()
