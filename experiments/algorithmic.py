"""
Table 3 of "Is Random Attention Sufficient?": standard, Frozen-QK and MixiT on algorithmic tasks and
Yelp sentiment classification.

Data: decimal addition (digits least-significant first; per-token accuracy on the sum digits and
<stop>), Dyck-1 (is the string balanced? accuracy on the answer), modular addition (a + b mod p;
accuracy on the answer), memorization (a random table of all size^2 pairs; accuracy on the training
set, the task has no held-out split) and Yelp review polarity (accuracy on the '+'/'-' label after the
review's first 255 tokens, over the whole test split).
Models: standard, frozen_qk, mixit; for each task one architecture and one set of hyperparameters for
all three (the paper selected them for MixiT, Table 8, and used them for every model).
Metric: held-out accuracy per scored token (training-set accuracy for memorization).
Full protocol (paper): the tasks at the paper's settings (10 digits with 50,000 / 4,000 pairs; Dyck
length 40 with 100,000 / 4,000; p = 599 with 40,000 / 4,000; size 512; Yelp's 560,000 / 38,000 reviews
in GPT-2 tokens) and Table 8 per task (layers, width, heads, learning rate, batch):
addition 8, 512, 64, 1e-3, 128; Dyck 4, 512, 64, 1e-3, 512; modular addition 2, 512, 32, 1e-3, 256;
memorization 2, 1024, 4, 1e-3, 256; Yelp 4, 1024, 16, 5e-4, 256. The paper gives no step counts; ours:
20,000 steps for addition (51 epochs), 10,000 for Dyck (51 epochs), modular addition (64 epochs) and
memorization (10 epochs; its Table 4 runs 10,000 steps too), 6,000 for Yelp (2.7 epochs); 100 warm-up
steps, cosine to a tenth of the peak. Yelp needs `python data/yelp/prepare.py` first (it downloads the
CSVs, or `--input=` reads them): a full run without it (data/yelp/, or DATA_DIR/yelp/) stops at once and says so.

--quick: width 64, 2 layers, 16 heads, lr 3e-3, batch 128 for
every task, on smaller tasks: 3-digit addition and Dyck length 16 (1,500 steps each), p = 47 with
1,800 / 400 pairs (1,500 steps), size 32 (600 steps). Yelp is skipped (no data can be downloaded
here, and a review model needs far more than minutes); --smoke runs it on a tiny CSV made on the spot.
Claim it tests: with attention scores frozen at random (frozen_qk) or replaced by fixed random
matrices (mixit), the models are competitive with the fully trained transformer on these tasks.
"""
import common

NAME = 'algorithmic'
VARIANT_ORDER = ['standard', 'frozen_qk', 'mixit']
TASK_ORDER = ['addition', 'dyck', 'modular_addition', 'memorization', 'yelp']
PAPER = {'addition': (98.58, 100, 100), 'dyck': (95.80, 97.38, 96.17), 'modular_addition': (100, 100, 100),
         'memorization': (100, 100, 100), 'yelp': (90.55, 90.86, 92.56)}  # standard, frozen_qk, mixit
# per mode and task, train.py's keys: the task's settings, Table 8's architecture and optimization, our step
# counts; warm-up min(100, 10% of the steps), cosine to a tenth of the peak; five evaluations per run
QUICK = dict(n_layer=2, n_embd=64, n_head=16, learning_rate=3e-3, min_lr=3e-4, batch_size=128)
SMOKE = dict(n_layer=2, n_embd=16, n_head=4, learning_rate=3e-3, min_lr=3e-4, batch_size=16, max_iters=4,
             warmup_iters=0, eval_interval=1)
PROTOCOL = {
    'full': dict(tasks={
        'addition': dict(n_layer=8, n_embd=512, n_head=64, learning_rate=1e-3, min_lr=1e-4, batch_size=128,
                         max_iters=20_000, warmup_iters=100, eval_interval=4_000),
        'dyck': dict(n_layer=4, n_embd=512, n_head=64, learning_rate=1e-3, min_lr=1e-4, batch_size=512,
                     max_iters=10_000, warmup_iters=100, eval_interval=2_000),
        'modular_addition': dict(n_layer=2, n_embd=512, n_head=32, learning_rate=1e-3, min_lr=1e-4, batch_size=256,
                                 max_iters=10_000, warmup_iters=100, eval_interval=2_000),
        'memorization': dict(n_layer=2, n_embd=1024, n_head=4, learning_rate=1e-3, min_lr=1e-4, batch_size=256,
                             max_iters=10_000, warmup_iters=100, eval_interval=2_000),
        'yelp': dict(n_layer=4, n_embd=1024, n_head=16, learning_rate=5e-4, min_lr=5e-5, batch_size=256,
                     max_iters=6_000, warmup_iters=100, eval_interval=1_200)}),
    'quick': dict(tasks={
        'addition': dict(digits=3, **QUICK, max_iters=1_500, warmup_iters=100, eval_interval=300),
        'dyck': dict(length=16, **QUICK, max_iters=1_500, warmup_iters=100, eval_interval=300),
        'modular_addition': dict(p=47, n_train=1_800, n_test=400, **QUICK, max_iters=1_500, warmup_iters=100,
                                 eval_interval=300),
        'memorization': dict(size=32, **QUICK, max_iters=600, warmup_iters=60, eval_interval=120)}),
    'smoke': dict(tasks={
        'addition': dict(digits=2, n_train=200, n_test=50, **SMOKE),
        'dyck': dict(length=8, n_train=200, n_test=50, **SMOKE),
        'modular_addition': dict(p=11, n_train=80, n_test=20, **SMOKE),
        'memorization': dict(size=8, **SMOKE),
        'yelp': dict(SMOKE, n_layer=1, batch_size=8)}),
}


def main():
    args = common.parse_args(__doc__)
    tasks = PROTOCOL[args.mode]['tasks']
    yelp = common.yelp_data(args) if 'yelp' in tasks else None  # before any training: a full run fails at once
    rows = []
    for task in TASK_ORDER:
        row = {'task': task, **{f'paper {v}': f'{p:.2f}%' for v, p in zip(VARIANT_ORDER, PAPER[task])}}
        row['setting'] = (', '.join(f'{k}={v}' for k, v in tasks[task].items()) if task in tasks else
                          'skipped in --quick: run the full protocol after data/yelp/prepare.py')
        for variant in VARIANT_ORDER if task in tasks else []:
            m = common.run(args, NAME, task=task, variant=variant, **tasks[task], **(yelp if task == 'yelp' else {}))
            row[variant] = common.pct(m['val_acc'])
        rows.append(row)
    columns = ['task'] + [c for v in VARIANT_ORDER for c in (v, f'paper {v}')] + ['setting']
    notes = ('Accuracy per scored token on the held-out split (memorization: on the training set, as in the paper). '
             'One architecture and set of hyperparameters per task for all three models.')
    if 'yelp' not in tasks:
        notes += ' Yelp is not run in --quick: it needs the prepared corpus and far more than minutes of CPU.'
    common.report(args, NAME, 'Table 3: algorithmic tasks and Yelp', columns, rows, notes=notes)


if __name__ == '__main__':
    main()
