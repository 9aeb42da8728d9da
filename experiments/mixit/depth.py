"""
Table 5 of "Is Random Attention Sufficient?": on decimal addition, MixiT "does scale with respect to
depth" while the random transformer (Zhong & Andreas 2024), which solves addition at depth 2, "does
not scale well with respect to depth". The paper's accuracy (%), PAPER:

| model | 2 layers | 8 | 16 |
|---|---|---|---|
| mixit | 100 | 100 | 100 |
| random | 100 | 23.53 | 22.88 |

Claims (CLAIMS below, judged by claims.judge): MixiT stays accurate as it gets deeper while the
random transformer degrades. Data: decimal addition, least-significant digit first. Models: mixit
(all trained but Eq. 2.3's fixed mixing) and random (only the embedding and head trained). Metric:
held-out accuracy per scored sum token over the seeds. Each model at its own best, as the paper
found the random transformer's failure "through in depth hyperparameter searches" (Appendix B.1):
fair.fair_sweep per model.

Settings, each from one place:
- PROTOCOL below: task, models, batch, steps, learning rate;
- its driver, 'depth.py', a key of papers.DRIVERS: papers.authors adds the driver's optimizer,
  schedule, data regime and MixiT block;
- the search: papers.TABLE7['algorithmic'] less FIXED (fair.grid), i.e. Table 7's algorithmic row
  but the layers, the width, heads and batch (the authors' scripts give each model its own);
  --quick searches the learning rate alone, times fair.QUICK_LR (1/3, 1, 3).

Full protocol, the authors' code (github princeton-pli/MixiT, experiments/README.md, section 3)
unless marked; depths 2, 8, 16 (paper text, Table 5), each searched; ten evaluations per run (ours):

| model | script | width, heads | weight_frozen (trained) | steps x batch | examples |
|---|---|---|---|---|---|
| mixit | scripts/depth.sh | 512, 128 | 0 (every weight) | 40,000 x 1,000 | 40M |
| random | depth_array.sh, vanilla | 512, 4 | 1 (embedding, head) | 312,500 x 128 | 40M |

- task: their additionstream_10 (10-digit operands, sum digits tokens of their own; the first sum
  digit, the target of '=', neither trained nor scored), 4,000 held-out sums, online training with
  held-out inputs rejected (their depth.py streams: the paper text's 50,000 pairs only set its step
  count); block_size 34 = 3 x digits + 4, their m.
- MixiT: their MixiT (per-head std, sink head) in their block (papers.MIXIT_BLOCK); batch 1,000 is
  the task file's; 40M examples = depth.sh's 500 "steps" x train_size 80,000 (read as
  --max_steps=500, as depth_array.sh passes it).
- random transformer: a plain Llama (RoPE, SiLU gate): variant random, pos='rope' (Zhong & Andreas'
  own has learned positions). depth.sh cannot make it: it trains every weight.
- optimizer (driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine to
  0, N(0, 0.02), biases, clipping 1.0, float32 (their drivers); lr 1e-2 (depth.py's default: the
  scripts pass none; --no-search runs it).

--quick (ours unless marked), a preview below the paper's regime (0.80 and 0.20 examples per
trained parameter for MixiT at depths 2 and 8, against the paper's 5.41 and 1.36): depth.py's
optimizer, lr 1e-2 and online draws with held-out inputs rejected, at a CPU's size:

| size | --quick (full) | from |
|---|---|---|
| digits | 3 (10) | papers.digits_for: inputs outnumber the budget eightfold |
| steps x batch | 1,500 x 64 (40,000 x 1,000; 312,500 x 128) | QUICK_STEPS, what 20 minutes allow |
| random: width, heads | 128, 4 (512, 4) | depth_array.sh's heads |
| mixit: width, heads | 64, 8 (512, 128) | all trained (random features need the width) |
| depths | 2, 8 (2, 8, 16) | the paper's random transformer has fallen at 8 |
| block_size | 13 (34) | their m, 3 x digits + 4 |
| held-out sums | 1,000 (4,000) | 0.12% of the inputs |
| warm-up | 100 steps (500) | ours |

- the stream: the paper's 40M examples of 10-digit sums (8.1e19 inputs) never repeat an input, so
  the quick digits are the fewest whose inputs outnumber the budget eightfold: 1,500 steps x 64 =
  96,000 examples over 810,000 3-digit inputs, 0.12 per input (2 digits would give 12 per input:
  memorized, not added); the 1,000 held-out sums are 0.12% of the inputs (the paper's ~0).
- random transformer: Zhong & Andreas' learned positions (the authors' RoPE one learned addition at
  depth 2 at no width a CPU affords); softmax scale papers.paper_scale(128, 4, 512) (frozen W_Q, W_K
  give near-uniform scores at 128). The claim is each model's trend with depth, not the two at one
  width.
- the learning rate is searched at depth 2 and reused at 8 (SEARCH_AT).
- steps: what 20 minutes allow at 44 ms a step (34 ms measured at block 10, x 13/10 for the
  block): 1,200 s / 18 runs / 44 ms = 1,500, not the paper's 40,000 (MixiT) or 312,500 (random).

TREND runs 1,500, 3,000 and 6,000 steps toward the paper's budget (one seed, lr 1e-2, 4 runs a
size, about 31 min). --smoke: the full protocol's models and optimizer, width 16, 4 heads, 3 steps,
depths 2 and 8 (--search: at 2).

--regime, the paper's regime at a CPU's size, where this file's verdict comes from (REGIME: each
model's examples per trained parameter at each depth beside full's, by common.examples_per_param):
quick's MixiT, each size from a quantity; the learning rate searched as --quick does (fair.QUICK_LR,
at depth 2, reused at 8); 3 seeds:

| setting | --regime | from |
|---|---|---|
| model | MixiT, width 64, 8 heads, all trained | --quick's |
| depths | 2, 8 (REGIME_DEPTHS) | where the paper's random transformer has fallen |
| steps x batch | 10,185 x 64 | the most the depths need to reach full's regime |
| regime | 5.41 and 1.39 examples a param (5.41, 1.36) | full's 40M over 7.4M and 29.5M |
| digits, block_size | 4, 16 | papers.digits_for(651,840): 0.008 per input |
| held-out sums, lr, warm-up | 1,000, 1e-2 at the centre, 500 | quick's; depth.py's warm-up |

Regime: ours 5.41 (depth 2) and 1.39 (depth 8) examples per trained parameter, the paper's 5.41 and
1.36 (40,000 x 1,000 over MixiT's 7,395,840 and 29,455,872 trained at width 512); one step count,
the larger of 10,185 (depth 2: 120,512 trained) and 9,964 (depth 8: 469,568), and the digits its
651,840 examples need (regime_mixit: 3 digits hold 810,000 inputs, 0.8 examples each, a table to
memorize).

Time, estimated before any run (reproduce.py --plan, from FLOPs): --regime's 9 runs are 1.32e14
FLOPs, 16.3 CPU min at 135 GFLOP/s (0.9 min a depth-2 run, 3.6 a depth-8 one). The FLOPs undercount
these small models: --quick's 6.35e13 plan as 7.84 min where they took 826.9 s (13.8 min,
results/depth-quick.json), 1.76 times; its MixiT runs alone took 3.21 times their FLOPs at depth 2
(20.7 s against 6.4) and 2.66 at depth 8 (67.9 against 25.5). So 6 x 0.9 x 3.21 + 3 x 3.6 x 2.66 =
46 min alone on 2 cores (29 by the file's 1.76); without the search, 37.

Not in --regime: the random transformer, whose regime no CPU hour holds. The paper trains 24,576 of
its parameters (embedding and head at width 512, RoPE) on 40M sums: 1,628 examples per trained
parameter. At width 128, the least where it learned 2-digit sums (96 stayed at the ~70% of tokens
guessable without adding; results/depth-quick.md), it trains 8,192 (learned positions, block 16):
13.3M examples, 208,000 steps of 64, and at --quick's 18.7 ms a step (depth 2) one run at depth 2
alone takes 65 minutes; 3 seeds at depths 2 and 8 (69.6 ms a step at 8), about 15 hours. Its
claims are untested in --regime (not measured) and judged in --quick alone, a preview: Not resolved
on a CPU. Depth 16 (MixiT): 3 more runs of 9,927 steps, 3 x 7.0 FLOP min x 2.66 = 56 minutes more.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for a script

from experiments.harness import claims, common, fair, papers

NAME = 'depth'
DEPTHS = [2, 8, 16]  # Table 5's
PAPER = {'mixit': {2: 100, 8: 100, 16: 100}, 'random': {2: 100, 8: 23.53, 16: 22.88}}
# full: the layers (Table 5's variable), each model's width and heads (the authors' scripts) and its
# batch (an example budget, with its steps) stay; Table 7's algorithmic row searches the rest, the
# learning rate
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')
QUICK_STEPS = 1_500  # what 20 minutes allow (docstring)
QUICK_DIGITS = papers.digits_for(QUICK_STEPS * 64)  # 3
TREND = dict(
    axis='training steps',
    sizes={
        '1,500': {},
        '3,000': dict(max_iters=3_000, eval_interval=3_000),
        '6,000': dict(max_iters=6_000, eval_interval=6_000),
    },
)
# trend.py --diagnose: MixiT's "solves addition at every depth" splits in the regime (one seed of
# three at 83% at depth 2 and at 82% at depth 8, the others 99.6-100%), moved toward the paper one
# axis at a time, 2 seeds a point at both depths, the protocol's own learning rate (--no-search:
# depth.py's 1e-2): the learning rate the regime's search chose at depth 2 (3.33e-3), and the
# paper's head width (16 heads of 4 at width 64; its 128 of 4 at 512). About 17 minutes a point (2 x
# 100 s at depth 2, 2 x 400 s at depth 8: the regime's runs), 50 in all.
DIAGNOSIS = dict(
    axes={
        'learning rate': {'1e-2': {}, '3.33e-3': dict(learning_rate=0.00333)},
        'head width': {'8': {}, '4': dict(n_head=16)},
    }
)
# the models (the table's rows), then the depths; block_size: the authors' m, 3 * digits + 4, the
# example and its answer
PROTOCOL = {
    'full': dict(
        driver='depth.py',
        keys=dict(task='addition', n_embd=512, block_size=34, learning_rate=1e-2),
        sweep=dict(
            variant={
                'mixit': dict(
                    n_head=128, batch_size=1000, max_iters=40_000, eval_interval=4_000
                ),  # depth.sh
                'random': dict(
                    pos='rope', n_head=4, batch_size=128, max_iters=312_500, eval_interval=31_250
                ),
            },  # depth_array.sh, vanilla
            n_layer=DEPTHS,
        ),
    ),
    'quick': dict(
        driver='depth.py',
        keys=dict(
            task='addition',
            digits=QUICK_DIGITS,
            n_train=10_000,
            n_test=1_000,
            block_size=3 * QUICK_DIGITS + 4,
            learning_rate=1e-2,
            warmup_iters=100,
            batch_size=64,
            max_iters=QUICK_STEPS,
            eval_interval=QUICK_STEPS,
        ),
        sweep=dict(
            variant={
                'mixit': dict(n_embd=64, n_head=8),
                'random': dict(n_embd=128, n_head=4, attn_scale=papers.paper_scale(128, 4, 512)),
            },  # learned positions
            n_layer=[2, 8],
        ),
    ),
    'smoke': dict(
        driver='depth.py',
        keys=dict(
            task='addition',
            digits=2,
            n_train=200,
            n_test=50,
            n_embd=16,
            n_head=4,
            block_size=10,
            learning_rate=3e-3,
            batch_size=16,
            max_iters=3,
            warmup_iters=0,
            eval_interval=3,
        ),
        sweep=dict(variant={'mixit': {}, 'random': dict(pos='rope')}, n_layer=[2, 8]),
    ),
}


def config(mode, model, depth):
    """train.py's keys of one run."""
    return common.config(PROTOCOL[mode], variant=model, n_layer=depth)


# The paper's regime (harness/claims.py's standing): examples (steps x batch) per trained parameter,
# each model's at each depth of full's budget (docstring: MixiT 5.41, 1.36 and 0.68 at 2, 8 and 16
# layers; the random transformer 1,628).
PAPER_REGIME = {
    model: {d: common.examples_per_param(config('full', model, d)) for d in DEPTHS}
    for model in PAPER
}
REGIME_DEPTHS = [2, 8]  # the depths where the paper's random transformer has fallen (docstring)


def regime_mixit():
    """--regime's protocol: quick's MixiT at REGIME_DEPTHS, depth.py's warm-up, and the fewest steps
    that reach full's examples per trained parameter at every depth (one step count, the most any
    depth needs), with the digits papers.digits_for gives those examples (the digits' positions
    change the count a little: the fixed point of the two)."""
    keys = {k: v for k, v in PROTOCOL['quick']['keys'].items() if k != 'warmup_iters'}
    variant = dict(mixit=PROTOCOL['quick']['sweep']['variant']['mixit'])
    for _ in range(5):
        protocol = dict(driver='depth.py', keys=keys, sweep=dict(variant=variant, n_layer=[]))
        steps = max(
            math.ceil(
                PAPER_REGIME['mixit'][d]
                * common.trained_params(common.config(protocol, variant='mixit', n_layer=d))
                / keys['batch_size']
                - 1e-9
            )
            for d in REGIME_DEPTHS
        )
        keys = {**keys, 'max_iters': steps, 'eval_interval': steps}
        digits = papers.digits_for(steps * keys['batch_size'])
        if digits == keys['digits']:
            return {**protocol, 'keys': keys, 'sweep': dict(variant=variant, n_layer=REGIME_DEPTHS)}
        keys = {**keys, 'digits': digits, 'block_size': 3 * digits + 4}
    raise AssertionError('no fixed point of digits and steps')


PROTOCOL['regime'] = regime_mixit()
# each mode's regime beside the paper's, per model and depth it runs
# Whether each shrunk problem is still the paper's (harness/problems.py, judged in claims.judged):
# each mode's beside the full protocol's, at most twice apart
PROBLEM = dict(
    factor=2,
    modes={
        mode: {'': common.config(p, variant=next(iter(p['sweep']['variant'])), n_layer=2)}
        for mode, p in PROTOCOL.items()
    },
)
REGIME = {
    mode: [
        dict(
            quantity=f'{model}, depth {d}: examples per trained parameter',
            ours=common.examples_per_param(config(mode, model, d)),
            paper=PAPER_REGIME[model][d],
        )
        for model in p['sweep']['variant']
        for d in p['sweep']['n_layer']
    ]
    for mode, p in PROTOCOL.items()
}
# the depth searched, its choice reused at the others (None: each)
SEARCH_AT = {'full': None, 'quick': 2, 'regime': 2, 'smoke': 2}

# The paper's statements on Table 5: MixiT "does scale with respect to depth" (100% at 2, 8 and 16
# layers) while the random transformer, which solves addition at depth 2 (100%), "does not scale
# well with respect to depth" (23.53% at 8, 22.88% at 16), over the depths each mode runs.
# "Solves": claims.solves (every seed above 95%), far above the tokens guessable without adding
# (about 70% at --quick's 2 digits). "Does not scale": below its depth-2 accuracy on every seed (8
# and 16 are level in the paper: no order between them). The table's contrast, "the random
# transformer's performance does not scale well with respect to depth, whereas ... MixiT scale[s]"
# (caption): at each depth past 2, MixiT above the random transformer on every seed, in the full
# protocol alone, where both are 512 wide (--quick gives them different widths, docstring; --regime
# runs MixiT alone: no CPU hour trains the random transformer's regime beside it).
RANDOM_AT = {8: 23.53, 16: 22.88}


def table5(depths):
    """Table 5's claims over the depths `depths`."""
    return [
        claims.solves(
            'MixiT solves addition at every depth (100% at '
            + ', '.join(f'{d}' for d in depths)
            + ' layers)',
            *[f'mixit, depth {d}' for d in depths],
        ),
        claims.solves(
            'the random transformer solves addition at depth 2 (100%)', 'random, depth 2'
        ),
    ] + [
        dict(
            says=f'the random transformer degrades with depth: 100% at 2 layers, {RANDOM_AT[d]}% '
            f'at {d}',
            test='descending',
            of=['random, depth 2', f'random, depth {d}'],
        )
        for d in depths
        if d != 2
    ]


def contrast(depths):
    """Table 5's caption at each of `depths` past 2: MixiT above the random transformer."""
    return [
        dict(
            says=f'the random transformer does not scale with depth, MixiT does: at {d} layers '
            f'MixiT above the random transformer (100% against {RANDOM_AT[d]}%)',
            test='descending',
            of=[f'mixit, depth {d}', f'random, depth {d}'],
        )
        for d in depths
        if d != 2
    ]


CLAIMS = {mode: table5(p['sweep']['n_layer']) for mode, p in PROTOCOL.items()}
CLAIMS['full'] += contrast(PROTOCOL['full']['sweep']['n_layer'])
CLAIMS['smoke'] = CLAIMS['quick']  # the same depths, 2 and 8


def main():
    args = fair.parse_args(__doc__)  # --regime searches as --quick does, at depth 2 (docstring)
    protocol, at = PROTOCOL[args.mode], SEARCH_AT[args.mode]
    depths, models = protocol['sweep']['n_layer'], protocol['sweep']['variant']
    # the runs first (with --plan, listed and not trained): per model the search at `at` alone
    # (None: at every depth), its choice reused at the other depths (docstring)
    sweeps = {
        model: fair.fair_sweep(
            args, NAME, {d: config(args.mode, model, d) for d in depths}, at, 'algorithmic', FIXED
        )
        for model in models
    }
    if args.plan:
        return common.write_plan(args, NAME)
    rows, fairs = [], {}
    for model in PAPER:  # a model the mode does not run (--regime's random transformer): 'not run'
        row, results = {'model': model}, sweeps.get(model, {})
        for depth in DEPTHS:
            if depth in results:
                fairs[f'{model}, depth {depth}'] = results[depth]
            row[f'depth {depth}'] = (
                fair.spread([m['val_acc'] for m in results[depth]['runs']])
                if depth in results
                else 'not run'
            )
            row[f'paper {depth}'] = f'{PAPER[model][depth]:.2f}%'
        rows.append(row)
    shown = {
        'every run': protocol['keys'],
        **{
            m: {
                k: v
                for k, v in config(args.mode, m, depths[0]).items()
                if k not in protocol['keys'] and k != 'n_layer'
            }
            for m in models
        },
    }  # what each run has

    def listed(v):
        return ', '.join(
            f'{a}={b:.4g}' if isinstance(b, float) else f'{a}={b}' for a, b in v.items()
        )

    settings = '; '.join(f'{k}: {listed(v)}' for k, v in shown.items())
    notes = (
        f'Settings: {settings}. Accuracy per scored token on the held-out split, over the seeds: '
        f'mean ± std (min–max); each model and depth at its chosen learning rate (below).'
    )
    if at and args.search:
        notes += (
            f' The learning rate is searched at depth {at} only and reused at the other '
            "depths (their grid: '-')."
        )
    if depths != DEPTHS:
        notes += (
            f' Not run in --{args.mode}: depth '
            f'{", ".join(str(d) for d in DEPTHS if d not in depths)}.'
        )
    if set(models) != set(PAPER):
        notes += (
            f' Not run in --{args.mode}: the random transformer, whose regime '
            f'({PAPER_REGIME["random"][2]:,.0f} examples per trained parameter) takes hours at any '
            'width where it learns (the docstring); its claims stay untested here.'
        )
    fair.report(
        args,
        NAME,
        'Table 5: MixiT and the random transformer against depth (decimal addition)',
        list(rows[0]),
        rows,
        fairs,
        notes=notes,
        claims=CLAIMS,
        regime=REGIME[args.mode],
    )


if __name__ == '__main__':
    main()
