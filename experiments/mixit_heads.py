"""
Table 9 of "Is Random Attention Sufficient?": MixiT's accuracy against its number of heads.

Data: decimal addition (per-token accuracy on the sum digits and <stop>), Dyck-1 (accuracy on the
answer) and Yelp review polarity (accuracy on the label, whole test split).
Models: mixit only, at a fixed width: each head has its own fixed random mixing matrix, so more heads
give the trained value projections and MLPs more mixing patterns to choose from, each on a narrower
slice (head_dim = width / heads). MixiT's matrix std is 1/sqrt(block_size * head_dim), so narrower heads
also mix more strongly.
Metric: held-out accuracy per scored token.
Full protocol (paper): 4, 16, 64 and 256 heads; width 512 for addition and Dyck, 1024 for Yelp; the rest
of Table 8 (the paper gives nothing else for this table): addition 8 layers, lr 1e-3, batch 128; Dyck
4 layers, lr 1e-3, batch 512; Yelp 4 layers, lr 5e-4, batch 256; the tasks at the paper's settings
and the step counts of algorithmic.py (20,000 for addition, 10,000 for Dyck, 6,000 for Yelp). Yelp
needs `python data/yelp/prepare.py` first; a full run without it stops at once and says so.

--quick (2-core CPU, 5.1 minutes): 4, 16 and 64 heads at width 64 (head_dim 16, 4, 1; 256
heads would need width >= 256), 2 layers, lr 3e-3, batch 128, 1,500 steps, on 3-digit addition and Dyck
length 16. Yelp is skipped (no data can be downloaded here); --smoke runs it on a tiny CSV.
Claim it tests: more heads help MixiT on addition and Dyck (on Yelp the paper sees no trend).
"""
import common

NAME = 'mixit_heads'
PAPER = {'addition': {4: 34.71, 16: 34.70, 64: 50.72, 256: 91.87},
         'dyck': {4: 77.93, 16: 81.68, 64: 89.38, 256: 91.83},
         'yelp': {4: 92.52, 16: 92.56, 64: 92.48, 256: 91.72}}
# heads, then per task: task settings, (n_layer, n_embd, learning_rate, batch_size, max_iters)
PROTOCOL = {
    'full': ([4, 16, 64, 256], {'addition': ({}, (8, 512, 1e-3, 128, 20_000)),
                                'dyck': ({}, (4, 512, 1e-3, 512, 10_000)),
                                'yelp': ({}, (4, 1024, 5e-4, 256, 6_000))}),
    'quick': ([4, 16, 64], {'addition': (dict(digits=3), (2, 64, 3e-3, 128, 1_500)),
                            'dyck': (dict(length=16), (2, 64, 3e-3, 128, 1_500))}),
    'smoke': ([4, 16], {'addition': (dict(digits=2, n_train=200, n_test=50), (2, 16, 3e-3, 16, 4)),
                        'dyck': (dict(length=8, n_train=200, n_test=50), (2, 16, 3e-3, 16, 4)),
                        'yelp': ({}, (1, 16, 3e-3, 8, 4))}),
}


def main():
    args = common.parse_args(__doc__)
    heads, tasks = PROTOCOL[args.mode]
    yelp = common.yelp_data(args) if 'yelp' in tasks else None  # before any training: a full run fails at once
    rows = []
    for task in PAPER:
        if task not in tasks:
            rows.append({'task': task, **{f'paper {h}': f'{p:.2f}%' for h, p in PAPER[task].items()},
                         'setting': 'skipped in --quick: run the full protocol after data/yelp/prepare.py'})
            continue
        settings, (n_layer, n_embd, lr, batch, steps) = tasks[task]
        row = {'task': task}
        for n_head in heads:
            m = common.run(args, NAME, task=task, variant='mixit', **settings, **(yelp if task == 'yelp' else {}),
                           n_layer=n_layer, n_embd=n_embd, n_head=n_head, learning_rate=lr, batch_size=batch,
                           max_iters=steps, eval_interval=max(1, steps // 5), run_name=f'{task}-mixit-{n_head}heads')
            row[f'{n_head} heads'] = common.pct(m['val_acc'])
            row[f'paper {n_head}'] = f'{PAPER[task][n_head]:.2f}%'
        shown = ', '.join(f'{k}={v}' for k, v in settings.items()) or 'paper setting'
        if task == 'yelp' and args.mode == 'smoke':
            shown = 'a tiny byte-level CSV made on the spot'
        row['setting'] = f'{shown}; L={n_layer}, n={n_embd}, lr {lr:g}, batch {batch}, {steps:,} steps'
        rows.append(row)
    columns = ['task'] + [c for h in PAPER['addition'] for c in (f'{h} heads', f'paper {h}')] + ['setting']
    notes = ('MixiT accuracy per scored token on the held-out split; only the number of heads changes within a row. '
             'The paper\'s 64-head addition (50.72%) disagrees with its own Table 3 (100%, the same Table 8 setting).')
    if 'yelp' not in tasks:
        notes += ' Yelp is not run in --quick: it needs the prepared corpus and far more than minutes of CPU.'
    if 256 not in heads:
        notes += ' 256 heads are not run in --quick: at width 64 a head must be at least 1 wide.'
    common.report(args, NAME, 'Table 9: MixiT accuracy against the number of heads', columns, rows, notes=notes)


if __name__ == '__main__':
    main()
