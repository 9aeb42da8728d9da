"""
Table 5 of "Is Random Attention Sufficient?": MixiT against the random transformer (Zhong & Andreas
2024) as depth grows, on decimal addition.

Data: decimal addition, digits least-significant first; per-token accuracy on the sum digits and <stop>.
Models: mixit (everything trained but the fixed mixing matrices, Eq. 2.3, whose rows sum to one: the
signal is shaped to propagate) and random (only the token and position embeddings and the LM head
trained; every block weight and norm at its standard random initialization), at depths 2, 8 and 16 and
otherwise the same architecture and hyperparameters.
Metric: held-out accuracy per scored token.
Full protocol (paper): 10-digit addition, 50,000 / 4,000 pairs, Table 8's addition setting for both
models (width 512, 64 heads, lr 1e-3, batch 128; the paper tuned the random transformer by its own
search, which it does not report), 20,000 steps (as in algorithmic.py), 100 warm-up steps, cosine to a
tenth of the peak.

--quick: 3-digit addition (50,000 / 4,000 pairs), width 64, 64
heads (as many as Table 8; mixit_heads.py --quick finds 64 heads far better than 4 or 16 for MixiT at
this width), lr 3e-3, batch 64, 1,000 steps; the same depths 2, 8, 16.
Claim it tests: MixiT stays accurate as it gets deeper while the random transformer degrades.
"""
import common

NAME = 'depth'
DEPTHS = [2, 8, 16]
PAPER = {'mixit': {2: 100, 8: 100, 16: 100}, 'random': {2: 100, 8: 23.53, 16: 22.88}}
# train.py's keys of every run but its depth: the task's settings, width, heads and optimization; warm-up
# min(100, 10% of the steps), cosine to a tenth of the peak; five evaluations per run
PROTOCOL = {
    'full': dict(n_embd=512, n_head=64, learning_rate=1e-3, min_lr=1e-4, batch_size=128, max_iters=20_000,
                 warmup_iters=100, eval_interval=4_000),
    'quick': dict(digits=3, n_embd=64, n_head=64, learning_rate=3e-3, min_lr=3e-4, batch_size=64, max_iters=1_000,
                  warmup_iters=100, eval_interval=200),
    'smoke': dict(digits=2, n_train=200, n_test=50, n_embd=16, n_head=4, learning_rate=3e-3, min_lr=3e-4,
                  batch_size=16, max_iters=3, warmup_iters=0, eval_interval=1),
}


def main():
    args = common.parse_args(__doc__)
    setting = PROTOCOL[args.mode]
    rows = []
    for variant in PAPER:
        row = {'model': variant}
        for depth in DEPTHS:
            m = common.run(args, NAME, task='addition', variant=variant, n_layer=depth, **setting)
            row[f'depth {depth}'] = common.pct(m['val_acc'])
            row[f'paper {depth}'] = f'{PAPER[variant][depth]:.2f}%'
        rows.append(row)
    budget = 'addition, ' + ', '.join(f'{k}={v}' for k, v in setting.items())
    common.report(args, NAME, 'Table 5: MixiT and the random transformer against depth (decimal addition)',
                  list(rows[0]), rows, notes=f'Budget: {budget}; accuracy per scored token on the held-out split.')


if __name__ == '__main__':
    main()
