"""
Table 2 of "W_K, W_V is probably all you need": GPT-2-style models with the query weights removed (W_Q = I:
the query of head h is the normalized input's own h-th slice) against parameter-matched baselines.

Models (nanoGPT's GPT-2: LayerNorm without biases, GELU MLP, learned positions, tied embeddings, no biases,
vocabulary 50,304), the paper's five configurations:
    baseline 124M              d 768, 12 heads of 64, MLP 4x, scale 1/sqrt(64), weight decay 0.1
    baseline, 3.5x MLP         d 768, MLP 3.5x (the d^2 per layer that W_Q = I saves, given to nobody)
    baseline, d_model 744      d 744, 12 heads of 62, MLP 4x, scale 1/sqrt(62)
    W_Q = I (117M)             d 768, MLP 4x, scale 1/(2 sqrt(64)) (Appendix 8.1), weight decay 2^-5
    W_Q = I, 4.5x MLP          the saved parameters moved into the MLP, scale and weight decay as above
Total and non-embedding parameter counts (non-embedding = all but the token and position embeddings)
are computed from model.py and must print 124.37M/84.95M, 117.30M/77.88M, 117.92M/79.73M,
117.30M/77.88M, 124.37M/84.95M.
Full protocol (paper): OpenWebText (`python data/openwebtext/prepare.py` first), context 1024, AdamW
(0.9, 0.95), lr 6e-4 with 2,000 warm-up steps and cosine decay to 6e-5 over nanoGPT's 600,000-step
schedule, of which 100,000 steps are run, batch 480 x 1024 = 491,520 tokens (micro-batch --micro_batch,
default 12, times gradient accumulation), clipping 1.0, bf16 on CUDA. Metric: validation loss (nats per
GPT-2 token) at the end; paper: 3.016 / 3.026 / 3.027 / 3.018 / 3.004. Each run prints its train.py
command; run those through torchrun for several GPUs (one run is days on one GPU).

Settings: every full-protocol setting follows the paper's text (Sec. 5, Table 2; no authors' code in reference.md).

--quick: the same five shapes scaled down to 4 layers, width 128, 4 heads of 32 (the d_model baseline:
4 heads of 31, width 124), context 128, on a local text at byte level (--text=PATH; default Debian's license
texts, as language_modeling.py), 900 steps of batch 16, lr 3e-3 (90 warm-up steps, cosine to 3e-4), the
paper's betas, clipping, weight decays and attention scales. What it can show: all five train stably with the
paper's settings, W_Q = I reaches a loss close to the baseline with fewer parameters, and the counts match at
full scale. What it cannot: the paper's differences, 0.01-0.02 nats after 49B tokens.
--smoke: 1 layer of width 16, 4 steps.
"""
import common
from model import GPT, GPTConfig

NAME = 'identity_query'
# the paper's five models: train.py's keys of each (small: the d_model baseline's smaller width) and its
# numbers (total and non-embedding parameters in M, validation loss)
MODELS = {
    'baseline (124M)': dict(weight_decay=0.1),
    'baseline, 3.5x MLP': dict(mlp_ratio=3.5, weight_decay=0.1),
    'baseline, smaller d_model': dict(small=True, weight_decay=0.1),
    'W_Q = I (117M)': dict(identity_query=True, weight_decay=2 ** -5),
    'W_Q = I, 4.5x MLP': dict(identity_query=True, mlp_ratio=4.5, weight_decay=2 ** -5),
}
PAPER = {'baseline (124M)': dict(total=124.37, non_emb=84.95, loss=3.016),
         'baseline, 3.5x MLP': dict(total=117.30, non_emb=77.88, loss=3.026),
         'baseline, smaller d_model': dict(total=117.92, non_emb=79.73, loss=3.027),
         'W_Q = I (117M)': dict(total=117.30, non_emb=77.88, loss=3.018),
         'W_Q = I, 4.5x MLP': dict(total=124.37, non_emb=84.95, loss=3.004)}
GPT2 = dict(norm='layernorm', mlp='gelu', pos='learned', tie_embeddings=True, bias=False)
# per mode: train.py's keys of every run but the model's own, the smaller d_model (the same heads, head_dim - 2
# at full scale, - 1 below) and the batch in sequences (--micro_batch of them at a time in the full protocol)
PROTOCOL = {
    'full': dict(small_n_embd=744, batch=480, run=dict(
        task='openwebtext', vocab_size=50304, **GPT2, n_layer=12, n_embd=768, n_head=12, block_size=1024,
        max_iters=100_000, lr_decay_iters=600_000, learning_rate=6e-4, min_lr=6e-5, warmup_iters=2000,
        eval_interval=5000, beta1=0.9, beta2=0.95, grad_clip=1.0)),
    'quick': dict(small_n_embd=124, batch=16, run=dict(
        task='text', encoding='bytes', **GPT2, n_layer=4, n_embd=128, n_head=4, block_size=128, max_iters=900,
        learning_rate=3e-3, min_lr=3e-4, warmup_iters=90, eval_interval=300, beta1=0.9, beta2=0.95, grad_clip=1.0)),
    'smoke': dict(small_n_embd=14, batch=4, run=dict(
        task='text', encoding='bytes', **GPT2, n_layer=1, n_embd=16, n_head=2, block_size=16, max_iters=4,
        learning_rate=3e-3, min_lr=3e-4, warmup_iters=0, eval_interval=4, beta1=0.9, beta2=0.95, grad_clip=1.0)),
}


def add_flags(parser):
    parser.add_argument('--micro_batch', type=int, default=12, help='full mode: sequences per micro-batch')
    parser.add_argument('--text', default='', help='quick mode: a UTF-8 text file; default: the license texts')


def model_keys(mode, label):
    """train.py's keys of a model in a mode."""
    keys = {**PROTOCOL[mode]['run'], **MODELS[label]}
    if keys.pop('small', False):
        keys['n_embd'] = PROTOCOL[mode]['small_n_embd']
    return keys


def counts(label):
    """-> (total, non-embedding) parameters of a model at the paper's scale: the tied embedding is counted
    once; non-embedding leaves out the token and position embeddings (nanoGPT's and the paper's convention)."""
    keys = model_keys('full', label)
    model = GPT(GPTConfig(**{k: v for k, v in keys.items() if k in GPTConfig.__dataclass_fields__}))
    total = model.get_num_params()
    return total, total - model.wte.weight.numel() - model.wpe.weight.numel()


def main():
    args = common.parse_args(__doc__, add_flags)
    protocol = PROTOCOL[args.mode]
    if args.mode == 'full':
        common.corpus_dirs(args, ['openwebtext'], 'run this script with --quick')
        data = {}
    else:
        data = dict(data_dir=str(common.byte_text(args, NAME)))
    batch = common.batch_keys(args, protocol['batch'])
    rows = []
    for label, paper in PAPER.items():
        full_total, full_nonemb = counts(label)
        config = dict(**model_keys(args.mode, label), **data, **batch)
        print(f'# {label}: {common.command(args, config)}')
        m = common.run(args, NAME, **config)
        attn = '1/(2 sqrt(d_k))' if config.get('identity_query') else '1/sqrt(d_k)'
        rows.append({'model': label, 'total params (full)': f'{full_total / 1e6:.2f}M',
                     'non-emb params (full)': f'{full_nonemb / 1e6:.2f}M',
                     'paper params': f"{paper['total']:.2f}M / {paper['non_emb']:.2f}M",
                     'trained params (this run)': f"{m['trainable_params']:,}", 'attention scale': attn,
                     'weight decay': f"{config['weight_decay']:g}", 'val loss': f"{m['val_loss']:.3f}",
                     'paper val loss': f"{paper['loss']:.3f}"})
    budget = ', '.join(f'{k}={v}' for k, v in {**protocol['run'], **batch}.items() if k not in GPT2)
    budget += f" (n_embd={protocol['small_n_embd']} for the smaller d_model)"
    unit = 'nats per GPT-2 token' if args.mode == 'full' else 'nats per byte (not comparable with the paper)'
    notes = (f'Budget: {budget}. Val loss in {unit}, over the whole held-out split. Parameter counts "(full)" are '
             f'of the paper-scale shapes (12 layers, width 768 or 744, vocabulary 50,304), whatever the mode.')
    common.report(args, NAME, 'Identity query, Table 2: W_Q = I against parameter-matched baselines',
                  list(rows[0]), rows, notes=notes)


if __name__ == '__main__':
    main()
