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
Settings: tasks, models, ablations and online training follow the paper's text (no authors' code in reference.md);
the settings it lost from our copy (below) are ours.
Full protocol: Dyck-1 length 40, k-hop length 32 over 4 letters; H = 2, L = 3, k = 8; 10,000 steps of batch
256, lr 1e-3 (warm-up 100, cosine to 1e-4); every task with every ablation.
--quick: Dyck-1 length 12, k-hop length 12; H = 2, L = 2 (Dyck) or 3
(k-hop), k = 4; 800 steps of batch 64, lr 3e-3; Table 1 for all five tasks and the ablations for Dyck-1
and 2-hop only. Beside each task: the accuracy of always giving its most frequent answer (on short k-hop
strings most chains leave the string, so <none> is the most frequent answer and grows with k).
Claim it tests: with only E and U trained, the sparse universal transformer solves Dyck-1 (and, with
residual and LayerNorm, k-hop), at least as well as the random one.
"""
import common
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
# per mode: sequence length and layers per task (dyck, and k-hop over 4 letters), the tasks, those that get
# every ablation, heads H and head width k of the construction, held-out examples, and train.py's optimization
# keys of every run (warm-up min(100, 10% of the steps), cosine to a tenth of the peak; one evaluation, at the end)
TASKS = ['dyck', '1-hop', '2-hop', '3-hop', '4-hop']
PROTOCOL = {
    'full': dict(length=dict(dyck=40, khop=32), n_layer=dict(dyck=3, khop=3), tasks=TASKS, ablated=TASKS,
                 n_head=2, k=8, n_test=2000,
                 run=dict(max_iters=10_000, batch_size=256, learning_rate=1e-3, min_lr=1e-4, warmup_iters=100,
                          eval_interval=10_000)),
    'quick': dict(length=dict(dyck=12, khop=12), n_layer=dict(dyck=2, khop=3), tasks=TASKS, ablated=['dyck', '2-hop'],
                  n_head=2, k=4, n_test=2000,
                  run=dict(max_iters=800, batch_size=64, learning_rate=3e-3, min_lr=3e-4, warmup_iters=80,
                           eval_interval=800)),
    'smoke': dict(length=dict(dyck=6, khop=6), n_layer=dict(dyck=1, khop=2), tasks=['dyck', '1-hop'], ablated=['dyck'],
                  n_head=1, k=2, n_test=20,
                  run=dict(max_iters=3, batch_size=8, learning_rate=3e-3, min_lr=3e-4, warmup_iters=0,
                           eval_interval=3)),
}


def main():
    args = common.parse_args(__doc__)
    p = PROTOCOL[args.mode]
    H, k = p['n_head'], p['k']
    rows = []
    for ablation, flags in ABLATIONS.items():
        for task in p['tasks']:
            if ablation != 'attention-only' and task not in p['ablated']:
                continue
            kind = 'dyck' if task == 'dyck' else 'khop'
            settings, vocab, T = common.universal_task(task, p['length'][kind], p['n_test'])
            L = p['n_layer'][kind]
            D = universal_dim(H, L, vocab + T, k)
            row = {'task': task, 'ablation': ablation, 'H, L, k; D': f'{H}, {L}, {k}; {D}',
                   'majority answer': common.pct(common.majority(settings))}
            for model, paper in zip(MODELS, PAPER.get((task, ablation), (None,) * 3)):
                width = dict(n_embd=D, universal_k=k) if model != 'standard' else dict(n_embd=64, pos='learned')
                m = common.run(args, NAME, **settings, variant=model, n_head=H, n_layer=L, **width, **flags,
                               online=True, **p['run'])
                row[model] = common.pct(m['val_acc'])
                row[f'paper {model}'] = '' if paper is None else f'{paper:.1f}%'
            rows.append(row)
    columns = ['task', 'ablation', 'H, L, k; D', 'majority answer'] + [c for m in MODELS for c in (m, f'paper {m}')]
    budget = ', '.join(f'{key}={v}' for key, v in p['run'].items())
    notes = (f"Budget: online training, {budget}; Dyck-1 length {p['length']['dyck']}, k-hop length "
             f"{p['length']['khop']} over 4 letters; accuracy per scored token on {p['n_test']:,} held-out examples. "
             f'universal_* train only the token and position embeddings and the LM head; standard (width 64) '
             f'trains everything. An empty paper cell: the paper has no such entry.')
    common.report(args, NAME, 'Universal transformers, Tables 1-4: Dyck-1 and k-hop with only E and U trained',
                  columns, rows, notes=notes)


if __name__ == '__main__':
    main()
