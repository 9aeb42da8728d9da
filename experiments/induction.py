"""
Table 1 of "Is Random Attention Sufficient?": tasks that need an induction head, k-hop induction heads and
retrieval (needle in a haystack). Can attention with frozen random W_Q, W_K still form one, and can MixiT,
whose attention is a fixed input-independent matrix, not?

Data: `khop` (100 random letters out of 4, no immediate repeats, k uniform in 0..16 given as the first token,
every position scored with hop_k of its letter) and `retrieval` (m uniform in 1..m_max key-value pairs, then a
query token, m_max = 30; only the queried value is scored).
Models: standard, frozen_mlp, frozen_qk, mixit, each task with one architecture for all four variants.
Metric: held-out accuracy per scored token (the paper's).

Full protocol, retrieval: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4)
unless marked:
- task: their condattendstream_30 (vocabulary 512; keys as V/2 + index, a query token of its own), 4,000
  held-out sequences, online training with held-out inputs rejected (their depth.py streams).
- architecture: paper text (Appendix C: 2 layers, width 1024, 4 heads; no script of theirs runs retrieval);
  m = block_size = 63, the whole sequence; MixiT with their MixiT block (common.MIXIT_BLOCK), the softmax
  variants with the plain Llama block.
- optimizer (common.authors, driver depth.py): AdamW (0.9, 0.999), weight decay 1e-3, 500 warm-up steps, cosine
  to 0, N(0, 0.02) weights, biases; lr 1e-4 and batch 1,024: paper text (Table 8, selected for MixiT, used for
  every variant; depth.py's own default is 1e-2); 5,000 steps: ours (the paper gives none; the scripts' 500 x
  train_size 200,000 / batch would be 100M examples).
Full protocol, k-hop: paper text and ours, not the MixiT drivers (their repository has no k-hop task; the task
follows Sanford et al.'s generator, whose conf/runs/width4-depth5.yaml trains a GPT-2 of width 128 with 4 heads,
batch 32, lr 1e-4, 100,001 steps): 100,000 training strings, 100 held-out, Table 8's 5 layers, width 512,
8 heads, lr 1e-4, batch 128, 5,000 steps (paper text); 100 warm-up steps, cosine to lr/10 and train.py's AdamW
defaults (0.9, 0.95; weight decay 0.1): ours.

--quick (ours; train.py's optimizer defaults): k-hop with strings of 32 letters and k in 0..3, 3 layers, width
64, 4 heads, lr 3e-3, batch 32, 800 steps, 500 held-out strings, warm-up 80 steps; retrieval with m_max = 8 and
common.RETRIEVAL's quick setting (V = 64, 2 layers, width 128, 2 heads, softmax scale 1, lr 1e-3, batch 128,
500 steps; common.py says why the scale). On k-hop the larger softmax scale did not help Frozen-QK, so k-hop
keeps the default. --smoke: the full protocol's settings, tiny.
Claim it tests: the standard model solves both tasks; Frozen-MLP and Frozen-QK solve retrieval and stay well
above MixiT on k-hop; MixiT is far below the others on both.
"""
import common

NAME = 'induction'
VARIANT_ORDER = ['standard', 'frozen_mlp', 'frozen_qk', 'mixit']
PAPER = {'khop': {'standard': 0.9999, 'frozen_mlp': 0.9989, 'frozen_qk': 0.9673, 'mixit': 0.4858},
         'retrieval': {'standard': 1.0, 'frozen_mlp': 1.0, 'frozen_qk': 0.9701, 'mixit': 0.1124}}
# per mode and task: the driver of the authors' code whose settings the runs take (common.authors; None: train.py's
# defaults), and train.py's keys of every run but its variant (retrieval's block_size: their m, 2 m_max + 3)
KHOP = dict(n_layer=5, n_embd=512, n_head=8, learning_rate=1e-4, min_lr=1e-5, warmup_iters=100, batch_size=128,
            max_iters=5000, eval_interval=5000)
PROTOCOL = {
    'full': {'khop': (None, KHOP),
             'retrieval': ('depth.py', dict(m_max=30, block_size=63, **common.RETRIEVAL['full']))},
    'quick': {'khop': (None, dict(length=32, max_hops=3, n_test=500, n_layer=3, n_embd=64, n_head=4,
                                  learning_rate=3e-3, min_lr=3e-4, warmup_iters=80, batch_size=32, max_iters=800,
                                  eval_interval=800)),
              'retrieval': (None, dict(m_max=8, **common.RETRIEVAL['quick']))},
    'smoke': {'khop': (None, dict(KHOP, length=8, max_hops=2, n_train=200, n_test=20, n_layer=1, n_embd=16,
                                  n_head=2, learning_rate=1e-3, warmup_iters=0, batch_size=8, max_iters=4,
                                  eval_interval=4)),
              'retrieval': ('depth.py', dict(m_max=3, block_size=9, **common.RETRIEVAL['smoke']))},
}
TASK_NAMES = {'khop': 'k-hop induction heads', 'retrieval': 'retrieval'}


def config(mode, task, variant):
    """train.py's keys of one run."""
    driver, keys = PROTOCOL[mode][task]
    return common.authors(driver, variant, task=task, **keys)


def main():
    args = common.parse_args(__doc__)
    rows = []
    tasks = PROTOCOL[args.mode]
    for task in tasks:
        row = {'task': TASK_NAMES[task]}
        for variant in VARIANT_ORDER:
            m = common.run(args, NAME, **config(args.mode, task, variant))
            row[variant] = common.pct(m['val_acc'])
            row[f'paper {variant}'] = common.pct(PAPER[task][variant])
        rows.append(row)
    columns = ['task'] + [c for v in VARIANT_ORDER for c in (v, f'paper {v}')]
    budget = '; '.join(f"{TASK_NAMES[t]}: " + ', '.join(f'{k}={v}' for k, v in config(args.mode, t, 'standard').items()
                                                        if k != 'variant')
                       + (f' (MixiT also {common.MIXIT_BLOCK})' if tasks[t][0] else '') for t in tasks)
    common.report(args, NAME, 'Table 1: tasks that need an induction head (held-out accuracy per scored token)',
                  columns, rows, notes=f'Settings: {budget}.')


if __name__ == '__main__':
    main()
