"""
Tables 1-4 of "Fixed universal transformers": can gradient descent find the embedding that programs a fixed
universal backbone? Dyck-1 and k-hop induction heads (k = 1..4) for the sparse universal transformer (the 0/1
construction of Theorem 3.1), the random universal transformer (same shapes, i.i.d. PyTorch-default init)
and a fully trained transformer, attention-only and with the ablations of Tables 2-4.

Data: Dyck-1 (data/dyck: vocabulary {pad, (, ), ?}, the answer after '?' scored) and k-hop with one fixed k
per task (data/khop with min_hops = max_hops = k; every position scored). Online training: a fresh batch
from the generator every step (train.py --online=True); accuracy per scored token on the held-out split.
Models: universal_sparse and universal_random train only the token and position embeddings and the LM
head (E and U); their attention, and any MLP and LayerNorm, stay fixed. The embedding dimension comes
from the construction: one-hot tokens and positions give d = vocabulary + sequence length, and
D = 2Hk(1 + H + ... + H^(L-1)) + d H^L for H heads, L layers and head width k; the random backbone uses the
same D. The fully trained model is the standard transformer with the same blocks (learned positions, no
RoPE), width 64 and everything trained.
Ablations (rows): attention-only; + residual; + residual and LayerNorm; + MLP (residual and a GELU MLP,
fixed for the universal models); + MLP and LayerNorm.
Paper (Table 1, attention-only): Dyck-1 sparse 100%, random 94.4%, trained 100%; k-hop k = 1..4 sparse
30.2 / 33.2 / 39.2 / 39.4%, random 29.4 / 30.5 / 32.6 / 35.2%, trained 8.4 / 51.8 / 99.5 / 95.6%. With
residual and LayerNorm (Table 2's rows for k-hop): sparse 100% at every k, random 96.1 / 85.7 / 92.6 / 89.2%,
trained 100%. Dyck-1 ablations (Table 3) and 2-hop ablations (Table 4) as in PAPER below. The paper's
sequence lengths, H, L, k and step counts were lost from our copy; ours are stated here.
Full protocol: Dyck-1 length 40, k-hop length 32 over 4 letters; H = 2, L = 3, k = 8; 10,000 steps of batch
256, lr 1e-3 (warm-up 100, cosine to 1e-4); every task with every ablation.
--quick (2-core CPU, about 10 minutes): Dyck-1 length 12, k-hop length 12; H = 2, L = 2 (Dyck) or 3
(k-hop), k = 4; 800 steps of batch 64, lr 3e-3; Table 1 for all five tasks and the ablations for Dyck-1
and 2-hop only. Beside each task: the accuracy of always giving its most frequent answer (on short k-hop
strings most chains leave the string, so <none> is the most frequent answer and grows with k).
Claim it tests: with only E and U trained, the sparse universal transformer solves Dyck-1 (and, with
residual and LayerNorm, k-hop), at least as well as the random one.
"""
import numpy as np

import common
from data.synthetic import load_task
from model import universal_dim

NAME = 'universal_tasks'
MODELS = ['universal_sparse', 'universal_random', 'standard']
ABLATIONS = {'attention-only': dict(residual=False, norm='none', mlp='none'),
             '+ residual': dict(residual=True, norm='none', mlp='none'),
             '+ residual and LN': dict(residual=True, norm='layernorm', mlp='none'),
             '+ MLP': dict(residual=True, norm='none', mlp='gelu'),
             '+ MLP and LN': dict(residual=True, norm='layernorm', mlp='gelu')}
PAPER = {  # (task, ablation) -> sparse, random, trained
    ('dyck', 'attention-only'): (100, 94.4, 100), ('dyck', '+ residual'): (100, 95.4, 100),
    ('dyck', '+ residual and LN'): (100, 100, 93.0), ('dyck', '+ MLP'): (100, 100, 100),
    ('dyck', '+ MLP and LN'): (100, 100, 94.4),
    ('1-hop', 'attention-only'): (30.2, 29.4, 8.4), ('2-hop', 'attention-only'): (33.2, 30.5, 51.8),
    ('3-hop', 'attention-only'): (39.2, 32.6, 99.5), ('4-hop', 'attention-only'): (39.4, 35.2, 95.6),
    ('1-hop', '+ residual and LN'): (100, 96.1, 100), ('2-hop', '+ residual and LN'): (100, 85.7, 100),
    ('3-hop', '+ residual and LN'): (100, 92.6, 100), ('4-hop', '+ residual and LN'): (100, 89.2, 100),
    ('2-hop', '+ residual'): (53.8, 54.3, 58.4), ('2-hop', '+ MLP'): (54.6, 54.1, 100),
    ('2-hop', '+ MLP and LN'): (100, 66.2, 100)}
PROTOCOL = {  # dyck length, khop length, H, L (dyck), L (khop), k, steps, batch, lr, n_test, ablated tasks
    'full': (40, 32, 2, 3, 3, 8, 10_000, 256, 1e-3, 2000, None),
    'quick': (12, 12, 2, 2, 3, 4, 800, 64, 3e-3, 2000, ('dyck', '2-hop')),
    'smoke': (6, 6, 1, 1, 2, 2, 3, 8, 3e-3, 20, ('dyck',))}


def task_settings(task, dyck_len, khop_len, n_test):
    """-> train.py task keys, vocabulary size and sequence length (the model's block) of a task. The
    training split is only generated (training is online), so it is kept small."""
    sizes = dict(n_train=100, n_test=n_test)
    if task == 'dyck':
        return dict(task='dyck', length=dyck_len, **sizes), 4, dyck_len + 1
    k = int(task.split('-')[0])
    return dict(task='khop', length=khop_len, letters=4, min_hops=k, max_hops=k, **sizes), 4 + 2 + k + 1, khop_len - 1


def majority(settings, n=20_000):
    """The accuracy of always answering the task's most frequent scored target, on fresh draws."""
    keys = {k: v for k, v in settings.items() if k not in ('task', 'n_train', 'n_test')}
    y = load_task(settings['task']).generate(np.random.default_rng(0), n, **keys)[1]
    return np.bincount(y[y != -1]).max() / (y != -1).sum()


def main():
    args = common.parse_args(__doc__)
    dyck_len, khop_len, H, L_dyck, L_khop, k, steps, batch, lr, n_test, ablated = PROTOCOL[args.mode]
    tasks = ['dyck', '1-hop', '2-hop', '3-hop', '4-hop'] if args.mode != 'smoke' else ['dyck', '1-hop']
    rows = []
    for ablation, flags in ABLATIONS.items():
        for task in tasks:
            if ablation != 'attention-only' and ablated is not None and task not in ablated:
                continue
            settings, vocab, T = task_settings(task, dyck_len, khop_len, n_test)
            L = L_dyck if task == 'dyck' else L_khop
            D = universal_dim(H, L, vocab + T, k)
            row = {'task': task, 'ablation': ablation, 'H, L, k; D': f'{H}, {L}, {k}; {D}',
                   'majority answer': common.pct(majority(settings))}
            for model, paper in zip(MODELS, PAPER.get((task, ablation), (None,) * 3)):
                width = dict(n_embd=D, universal_k=k) if model != 'standard' else dict(n_embd=64, pos='learned')
                m = common.run(args, NAME, **settings, variant=model, n_head=H, n_layer=L, **width, **flags,
                               online=True, max_iters=steps, batch_size=batch, learning_rate=lr,
                               eval_interval=steps, run_name=f'{task}-{model}-{ablation.replace(" ", "")}')
                row[model] = common.pct(m['val_acc'])
                row[f'paper {model}'] = '' if paper is None else f'{paper:.1f}%'
            rows.append(row)
    columns = ['task', 'ablation', 'H, L, k; D', 'majority answer'] + [c for m in MODELS for c in (m, f'paper {m}')]
    notes = (f'Budget: {steps:,} online steps of batch {batch}, lr {lr:g} (warm-up min(100, steps/10), cosine to '
             f'lr/10); Dyck-1 length {dyck_len}, k-hop length {khop_len} over 4 letters; accuracy per scored token '
             f'on {n_test:,} held-out examples. universal_* train only the token and position embeddings and the LM head; '
             f'standard (width 64) trains everything. An empty paper cell: the paper has no such entry.')
    common.report(args, NAME, 'Universal transformers, Tables 1-4: Dyck-1 and k-hop with only E and U trained',
                  columns, rows, notes=notes)


if __name__ == '__main__':
    main()
