"""
Table 5 of "Is Random Attention Sufficient?": MixiT against the random transformer (Zhong & Andreas
2024) as depth grows, on decimal addition.

Data: decimal addition, digits least-significant first; per-token accuracy on the scored sum tokens.
Models: mixit (everything trained but the fixed mixing matrices, Eq. 2.3, whose rows sum to one: the
signal is shaped to propagate) and random (only the token embedding and the LM head trained, every
block weight and norm at its random initialization), at depths 2, 8 and 16.
Metric: held-out accuracy per scored token.

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- task: their additionstream_10 (10-digit operands; sum digits tokens of their own; the first sum digit, the
  target of '=', neither trained nor scored); 4,000 held-out sums; online training, a fresh batch every step
  with held-out inputs rejected (their depth.py streams: the paper text's 50,000 pairs only set its step count).
- MixiT: scripts/depth.sh's width 512 and 128 heads, every weight trained (its weight_frozen=0); their MixiT
  (per-head std, sink head) with m = block_size = 34, the whole sequence their model reads; their MixiT block
  (common.MIXIT_BLOCK: LeakyReLU gate, skip scaling sqrt(0.5), width multipliers at base 512).
- random transformer: their code's, a plain Llama (RoPE, SiLU gate) with depth.py's weight_frozen=1, so only
  the token embedding and the LM head are trained (variant random with pos='rope'; Zhong & Andreas' own, our
  random variant as such and --quick's, is GPT-2-like with learned positions, trained too), as
  scripts/depth_array.sh's vanilla branch runs it: width 512, 4 heads, batch 128, 312,500 steps (500 x 80,000 /
  128 = 40M examples). depth.sh cannot make it: it trains every weight.
- optimizer (common.authors, driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine
  to 0, lr 1e-2 (depth.py's default: the scripts pass none), N(0, 0.02) weights, biases, clipping 1.0 (HF's).
- MixiT's budget: 40,000 steps of batch 1,000 (the task file's batch: depth.sh passes none) = 40M examples,
  depth.sh's 500 "steps" x train_size 80,000 (depth.sh passes --train_steps=500 and --shaping, flags today's
  depth.py rejects; read as --max_steps=500, as depth_array.sh passes it).
- depths 2, 8, 16: paper text (Table 5; depth.sh runs 8 layers). Ten evaluations per run: ours.
Estimated (not measured): about an hour per model on one H100, most of it the 16-layer runs.

--quick (ours; train.py's optimizer defaults, nanoGPT's): 3-digit addition (50,000 / 4,000 pairs), width 64, 64
heads (mixit_heads.py --quick finds 64 heads far better than 4 or 16 for MixiT at this width), lr 3e-3, batch 64,
1,000 steps; the same depths 2, 8, 16; Zhong & Andreas' random transformer (learned positions).
--smoke: the full protocol's models and optimizer, tiny.
Claim it tests: MixiT stays accurate as it gets deeper while the random transformer degrades.
"""
import common

NAME = 'depth'
DEPTHS = [2, 8, 16]
PAPER = {'mixit': {2: 100, 8: 100, 16: 100}, 'random': {2: 100, 8: 23.53, 16: 22.88}}
# per mode: train.py's keys of each model, and of every run but its model and depth (block_size: the authors' m,
# 3 * digits + 4, the example and its answer)
AUTHORS = {'mixit': common.authors('depth.py', 'mixit', n_head=128, batch_size=1000, max_iters=40_000,
                                   eval_interval=4_000),  # scripts/depth.sh
           'random': common.authors('depth.py', 'random', pos='rope', n_head=4, batch_size=128, max_iters=312_500,
                                    eval_interval=31_250)}  # depth_array.sh, shaped_attention=vanilla
PROTOCOL = {
    'full': dict(models=AUTHORS, run=dict(n_embd=512, block_size=34, learning_rate=1e-2)),
    'quick': dict(models={v: dict(variant=v) for v in PAPER}, run=dict(
        digits=3, n_embd=64, n_head=64, learning_rate=3e-3, min_lr=3e-4, batch_size=64, max_iters=1_000,
        warmup_iters=100, eval_interval=200)),
    'smoke': dict(models=AUTHORS, run=dict(digits=2, n_test=50, n_embd=16, n_head=4, block_size=10,
                                           learning_rate=3e-3, batch_size=16, max_iters=3, warmup_iters=0,
                                           eval_interval=1)),
}


def config(mode, model, depth):
    """train.py's keys of one run."""
    return {'task': 'addition', **PROTOCOL[mode]['models'][model], **PROTOCOL[mode]['run'], 'n_layer': depth}


def main():
    args = common.parse_args(__doc__)
    rows = []
    for model in PAPER:
        row = {'model': model}
        for depth in DEPTHS:
            m = common.run(args, NAME, **config(args.mode, model, depth))
            row[f'depth {depth}'] = common.pct(m['val_acc'])
            row[f'paper {depth}'] = f'{PAPER[model][depth]:.2f}%'
        rows.append(row)
    protocol = PROTOCOL[args.mode]
    settings = '; '.join(f"{k}: {', '.join(f'{a}={b}' for a, b in v.items())}"
                         for k, v in {'every run': protocol['run'], **protocol['models']}.items())
    common.report(args, NAME, 'Table 5: MixiT and the random transformer against depth (decimal addition)',
                  list(rows[0]), rows, notes=f'Settings (addition): {settings}. Accuracy per scored token on the '
                                             f'held-out split.')


if __name__ == '__main__':
    main()
