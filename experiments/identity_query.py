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

--quick (2-core CPU, about 9 minutes for the five): the same five shapes scaled down to 4 layers, width
128, 4 heads of 32 (the d_model baseline: 4 heads of 31, width 124), context 128, on a local text at byte
level (--text=PATH; default Debian's license texts, as language_modeling.py), 900 steps of batch 16,
lr 3e-3 (90 warm-up steps, cosine to 3e-4), the paper's betas, clipping, weight decays and attention
scales. What it can show: all five train stably with the paper's settings, W_Q = I reaches a loss close
to the baseline with fewer parameters, and the counts match at full scale. What it cannot: the paper's
differences are 0.01-0.02 nats after 49B tokens; at 1.8M bytes they are within run-to-run noise.
--smoke: 1 layer of width 16, 4 steps.
"""
import sys
from pathlib import Path

import common
from model import GPT, GPTConfig

NAME = 'identity_query'
# label, model keys, weight decay, paper (total M, non-embedding M, val loss)
CONFIGS = [
    ('baseline (124M)', dict(), 0.1, (124.37, 84.95, 3.016)),
    ('baseline, 3.5x MLP', dict(mlp_ratio=3.5), 0.1, (117.30, 77.88, 3.026)),
    ('baseline, smaller d_model', dict(shrink=True), 0.1, (117.92, 79.73, 3.027)),
    ('W_Q = I (117M)', dict(identity_query=True), 2 ** -5, (117.30, 77.88, 3.018)),
    ('W_Q = I, 4.5x MLP', dict(identity_query=True, mlp_ratio=4.5), 2 ** -5, (124.37, 84.95, 3.004)),
]
GPT2 = dict(norm='layernorm', mlp='gelu', pos='learned', tie_embeddings=True, bias=False)
SCALES = {  # n_layer, n_embd, n_head, shrunk n_embd (same heads, head_dim - 2 at full scale, - 1 below), block
    'full': (12, 768, 12, 744, 1024), 'quick': (4, 128, 4, 124, 128), 'smoke': (1, 16, 2, 14, 16)}


def add_flags(parser):
    parser.add_argument('--micro_batch', type=int, default=12, help='full mode: sequences per micro-batch')
    parser.add_argument('--text', default='', help='quick mode: a UTF-8 text file; default: the license texts')


def model_keys(mode, keys):
    n_layer, n_embd, n_head, shrunk, block = SCALES[mode]
    keys = dict(keys)
    width = shrunk if keys.pop('shrink', False) else n_embd
    return dict(**GPT2, n_layer=n_layer, n_embd=width, n_head=n_head, block_size=block, **keys)


def counts(keys, vocab_size):
    """-> (total, non-embedding) parameters: the tied embedding is counted once; non-embedding leaves out
    the token and position embeddings (nanoGPT's and the paper's convention)."""
    model = GPT(GPTConfig(**keys, vocab_size=vocab_size))
    total = model.get_num_params()
    return total, total - model.wte.weight.numel() - model.wpe.weight.numel()


def main():
    args = common.parse_args(__doc__, add_flags)
    if args.mode == 'full':
        data_dir = common.ROOT / 'data' / 'openwebtext' if not args.data_dir else Path(args.data_dir)
        if not (data_dir / 'meta.json').exists():
            sys.exit(f'error: no prepared OpenWebText in {data_dir}: run python data/openwebtext/prepare.py '
                     f'(or --input=LOCAL_FILES), or run this script with --quick')
        if 480 % args.micro_batch:
            sys.exit(f'error: --micro_batch={args.micro_batch} must divide the batch of 480')
        data = dict(task='openwebtext', data_dir=str(data_dir), vocab_size=50304)
        opt = dict(max_iters=100_000, lr_decay_iters=600_000, batch_size=args.micro_batch,
                   gradient_accumulation_steps=480 // args.micro_batch, learning_rate=6e-4, min_lr=6e-5,
                   warmup_iters=2000, eval_interval=5000)
        budget = ('100,000 of 600,000 scheduled steps of 480 x 1024 GPT-2 tokens, lr 6e-4 (2,000 warm-up, cosine '
                  'to 6e-5)')
    else:
        quick = args.mode == 'quick'
        data = dict(task='text', encoding='bytes', data_dir=str(common.byte_text(args, NAME)))
        steps = 900 if quick else 4
        opt = dict(max_iters=steps, batch_size=16 if quick else 4, learning_rate=3e-3, min_lr=3e-4,
                   warmup_iters=steps // 10, eval_interval=300 if quick else steps)
        n_layer, n_embd, n_head, shrunk, block = SCALES[args.mode]
        budget = (f'{steps} steps of batch {opt["batch_size"]} x {block} bytes, {n_layer} layers, width {n_embd} '
                  f'({shrunk} for the smaller d_model), {n_head} heads, lr 3e-3 (cosine to 3e-4)')
    rows = []
    for label, keys, weight_decay, (paper_total, paper_nonemb, paper_loss) in CONFIGS:
        full_total, full_nonemb = counts(model_keys('full', keys), 50304)
        config = dict(**data, **model_keys(args.mode, keys), **opt, weight_decay=weight_decay, beta1=0.9,
                      beta2=0.95, grad_clip=1.0, run_name=label.replace(' ', '').replace(',', '-'))
        print(f'# {label}: python train.py ' + ' '.join(f'--{k}={v}' for k, v in config.items()))
        m = common.run(args, NAME, **config)
        attn = config.get('attn_scale') or ('1/(2 sqrt(d_k))' if keys.get('identity_query') else '1/sqrt(d_k)')
        rows.append({'model': label, 'total params (full)': f'{full_total / 1e6:.2f}M',
                     'non-emb params (full)': f'{full_nonemb / 1e6:.2f}M',
                     'paper params': f'{paper_total:.2f}M / {paper_nonemb:.2f}M',
                     'trained params (this run)': f"{m['trainable_params']:,}", 'attention scale': attn,
                     'weight decay': f'{weight_decay:g}', 'val loss': f"{m['val_loss']:.3f}",
                     'paper val loss': f'{paper_loss:.3f}'})
    unit = 'nats per GPT-2 token' if args.mode == 'full' else 'nats per byte (not comparable with the paper)'
    notes = (f'Budget: {budget}. Val loss in {unit}, over the whole held-out split. Parameter counts "(full)" are '
             f'of the paper-scale shapes (12 layers, width 768 or 744, vocabulary 50,304), whatever the mode.')
    common.report(args, NAME, 'Identity query, Table 2: W_Q = I against parameter-matched baselines',
                  list(rows[0]), rows, notes=notes)


if __name__ == '__main__':
    main()
