"""
Table 6 of "Is Random Attention Sufficient?": the covariance between the last layer's representations of
different tokens of one sequence, for the random transformer (Zhong & Andreas: only embeddings and LM head
trained) and MixiT, at depths 2, 4, 8, 16, 32. The paper: it grows with depth for the random transformer
(representation / rank collapse), it stays flat for MixiT.

What is measured (ours: their repository has no code for this table, the paper one sentence: "calculated between
the last layer hidden representations within a sequence ..., then averaged across sequences", on WikiText, for
the language models of Section 5): for every held-out window of block_size tokens we take the last layer's hidden
representations H (T x n), the last block's un-normalized output, i.e. the input of the final RMSNorm (the paper's
magnitudes, 1e-3 to 1e-2, are those of un-normalized states at the paper's width: reference.md section 4), and
beside it the norm's output that the LM head reads (what `hidden_states[-1]` of a Hugging Face Llama holds);
captured by a forward hook on model.norm_f, model.py untouched. The covariance of tokens i and j is the covariance
over the n features of their vectors (torch.cov of the rows of H: each token centred over its features, divided by
n - 1); the statistic is the mean of the off-diagonal entries i != j, averaged over windows, in units of 1e-2.
Beside it, because a covariance depends on the scale of H: the mean over i != j of the correlation (covariance over
the two tokens' standard deviations) of the norm's output. Each is measured at initialization (before any step: the
model is a function of its config; the signal-propagation argument of the paper is about this) and after training.

Comparison (issue 16): each trained model at its own best. Per model and trained depth, common.fair: each point of a
search trained on seed 0 and scored by log perplexity on a validation split (the training split's last 10% of
tokens, held out of training), then the chosen point on --seeds seeds (default 3; seed and data_seed), the
statistics reported as mean ± std (min–max) over the seeds; at initialization over the same seeds. What is searched:
Table 7's language-modeling row but the layers (the table's variable), the width and heads (the statistic is the
paper width's) and the batch (Table 8's) (full); the protocol's learning rate times 1/3, 1 and 3 (--quick).

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- models: MixiT as their trainer.py builds it (language_modeling.py: their MixiT block with gate c = -1 and skip
  scaling 0.5); the random transformer as their code has it, a plain Llama (RoPE) with only the token embedding
  and LM head trained (depth.py's weight_frozen=1: trainer.py cannot freeze the blocks), variant random with
  pos='rope'; depths 2, 4, 8, 16, 32 (paper text, Table 6), each trained and searched.
- optimizer (common.authors, driver trainer.py): AdamW (0.9, 0.999), weight decay 0.01, warm-up max(4% of the
  steps, 500) = 1,600, linear decay to 0, N(0, 0.02) weights, biases; lr 5e-4 (--no-search; the search Table 7's
  1e-3, 5e-4, 1e-4), batch 512 (64 x 8 accumulation), 40,000 steps, width 512, 8 heads, block 256: Table 8's
  language-modeling setting (paper text, and their README's trainer.py command).
- data: WikiText-103 with GPT-2 tokens in contiguous windows (ours: their Llama-3.2 tokenizer and one padded
  row per line cannot be reproduced offline); prepared beforehand (`python data/wikitext/prepare.py`; the script
  stops with that message otherwise); statistics over the first 256 held-out windows (ours).

--quick (chosen before it was run; ours unless marked): the full protocol's models at the paper's width (the issue:
the statistic's magnitude depends on the width), on the 'text' task at byte level on a local UTF-8 file
(--text=PATH; without it, the files of /usr/share/common-licenses, each once):
- models and optimizer as in full (common.authors('trainer.py'): AdamW (0.9, 0.999), weight decay 0.01, linear
  decay to 0, biases, N(0, 0.02), MixiT's block with skip scaling 0.5; the random transformer with RoPE): width 512,
  8 heads, block 256. reference.md section 4's init values at that size (random transformer 0.139 / 0.353 / 0.609 /
  0.764 / 0.945 x1e-2 at depth 2 / 4 / 8 / 16 / 32, MixiT about 0.015) are of another block: checked before this
  protocol was fixed (seed 0, 4 windows, x1e-2 at depth 2 / 8), the repository's default one (1/sqrt(2L) on the
  residual projections, no biases) on random GPT-2-sized token ids gives the random transformer 0.148 / 0.688 and
  MixiT 0.095 / 0.128; the authors' one (N(0, 0.02) everywhere, biases; MixiT's block), this file's, gives 1.210 /
  18.606 and 0.048 / 0.131 on those ids, and on these bytes 3.630 / 28.716 and 0.056 / 0.152 (a byte window repeats
  its few tokens).
- initialization: every depth, 2, 4, 8, 16, 32, both models, on the --seeds seeds (forward passes only).
- training: depths 2 and 8 only (a 512-wide 8-layer step takes over a second on one core, and the 16- and 32-layer
  ones would take the whole budget alone), 40 steps of 2 windows of 256 bytes (20,480 tokens: a short training,
  in which Adam can move a trained weight by about its init std, not a trained language model), lr 1.5e-3, the
  search's centre (5e-4, Table 8's, 1.5e-3, 4.5e-3: a 40-step run favours larger steps), 4 warm-up steps
  (trainer.py's max(4%, 500) would outlast the run), validation and held-out log perplexity on 16 windows, one
  evaluation, at the end. The learning rate is searched at depth 2 and reused at depth 8 (3 + 3 + 3 runs per model
  instead of 12): a search at depth 8 would add about 4.5 minutes.
- statistics over the first 4 held-out windows, for each seed (the models are large; every window gives 256 x 255
  token pairs).
Estimated wall time alone, OMP_NUM_THREADS=1: 8.5 minutes, from per-step CPU times measured at this size (random
transformer 0.24 and about 1.0 s at depth 2 and 8, MixiT 0.32 and 1.2 s): 40 steps x (6 runs at depth 2 + 3 at depth
8) per model, about 6.5 minutes; the models at initialization about 1 minute (building and a forward pass of 4
windows take 4.5 s at depth 32); saving and loading the checkpoints (up to 0.4 GB each) and the statistics of
the trained models, about a minute.
--smoke: the full protocol's models and optimizer on a tiny text file written under DATA_DIR, depths 2, 4, 8 (2 and 4
trained), width 16, 2 steps.
Claim the quick protocol tests: the covariance between the random transformer's un-normalized last-layer token
states grows with depth while MixiT's stays small and flat, at initialization (every depth) and after a short
training (depths 2 and 8).
"""
import json
from pathlib import Path

import numpy as np
import torch

import common
from data.loader import pick_device
from model import GPT, GPTConfig
from train import load_checkpoint, model_args_of, resolve

NAME = 'rank_collapse'
PAPER = {'random': {2: 0.218, 4: 1.450, 8: 2.075, 16: 1.946, 32: 5.438},
         'mixit': {2: 0.088, 4: 0.260, 8: 0.210, 16: 0.154, 32: 0.104}}
# full: the layers (Table 6's variable), the width and heads (the statistic's) and Table 8's batch stay; Table 7's
# language-modeling row searches the rest, the learning rate
FIXED = ('n_layer', 'n_embd', 'n_head', 'batch_size')
THEIRS = {'random': dict(pos='rope'), 'mixit': {}}  # their random transformer: a plain Llama, with RoPE
# per mode: the depths measured at initialization, those trained, the depth the search runs at (None: every trained
# depth), the held-out windows the statistics average over, and train.py's keys of every run but its model and depth
# (each run through common.authors, driver trainer.py)
PROTOCOL = {
    'full': dict(depths=[2, 4, 8, 16, 32], trained=[2, 4, 8, 16, 32], search_at=None, n_windows=256, run=dict(
        task='wikitext', n_embd=512, n_head=8, block_size=256, batch_size=64, gradient_accumulation_steps=8,
        max_iters=40_000, learning_rate=5e-4, eval_interval=2000)),
    'quick': dict(depths=[2, 4, 8, 16, 32], trained=[2, 8], search_at=2, n_windows=4, run=dict(
        task='text', encoding='bytes', n_embd=512, n_head=8, block_size=256, batch_size=2, max_iters=40,
        learning_rate=1.5e-3, warmup_iters=4, eval_interval=40, eval_examples=16)),
    'smoke': dict(depths=[2, 4, 8], trained=[2, 4], search_at=2, n_windows=4, run=dict(
        task='text', encoding='bytes', n_embd=16, n_head=2, block_size=16, batch_size=4, max_iters=2,
        learning_rate=3e-3, warmup_iters=0, eval_interval=2)),
}


def config(mode, model, depth):
    """train.py's keys of one run but its data_dir."""
    return common.authors('trainer.py', model, **THEIRS[model], **PROTOCOL[mode]['run'], n_layer=depth)


def add_flags(parser):
    parser.add_argument('--text', default='', help='--quick: a UTF-8 file to train on at byte level; '
                                                   "'' = /usr/share/common-licenses/* concatenated")


@torch.no_grad()
def token_statistics(model, windows, device, batch=16):
    """-> {'cov in', 'cov out', 'corr out'}: means over the windows of the mean over i != j of cov(h_i, h_j) for h the
    final norm's input and output (the last layer's representation the LM head reads), and of corr(h_i, h_j) for
    its output; statistics over the n features."""
    model.eval().to(device)
    captured = []
    hook = model.norm_f.register_forward_hook(lambda module, inputs, output: captured.append((inputs[0], output)))
    stats = {'cov in': [], 'cov out': [], 'corr out': []}
    try:
        for x in windows.split(batch):
            captured.clear()
            model(x.to(device))
            for where, h in zip(('in', 'out'), captured[0]):
                h = h.float()  # (B, T, n)
                h = h - h.mean(-1, keepdim=True)
                cov = h @ h.transpose(1, 2) / (h.shape[-1] - 1)  # (B, T, T) = torch.cov of each window's rows
                off = ~torch.eye(h.shape[1], dtype=torch.bool, device=h.device)
                stats[f'cov {where}'].append(cov[:, off].mean(-1))
            std = cov.diagonal(dim1=1, dim2=2).clamp_min(1e-30).sqrt()  # cov: the output's, the loop's last
            stats['corr out'].append((cov / (std[:, :, None] * std[:, None, :]))[:, off].mean(-1))
    finally:
        hook.remove()
    return {k: torch.cat(v).mean().item() for k, v in stats.items()}


def main():
    args = common.parse_args(__doc__, add_flags, compare=True)
    protocol = PROTOCOL[args.mode]
    block = protocol['run']['block_size']
    if args.mode == 'full':
        directory, data = common.corpus_dirs(args, ['wikitext'], 'run this script with --quick')[0], {}
    else:
        directory = common.byte_text(args, NAME)
        data = dict(data_dir=str(directory))
    meta = json.loads((directory / 'meta.json').read_text())
    val = np.memmap(directory / 'val.bin', dtype=np.uint16, mode='r')
    n_windows = min(protocol['n_windows'], len(val) // block)
    windows = torch.from_numpy(val[:n_windows * block].astype(np.int64)).view(n_windows, block)
    device = pick_device(args.device)
    three = lambda x: f'{x:.3f}'
    cov = lambda x: f'{100 * x:.3f}'
    rows, fairs, statistics = [], {}, {}
    for model in PAPER:
        # the search at search_at alone (None: at every trained depth), its choice reused at the others (docstring)
        configs = {d: {**config(args.mode, model, d), **data} for d in protocol['trained']}
        results = common.fair_sweep(args, NAME, configs, protocol['search_at'], 'language_modeling', FIXED,
                                    key='val_loss', higher=False)
        for depth in protocol['depths']:
            label = f'{model}, depth {depth}'
            # a run's model before its first step, on each seed: a function of its config (train.py builds it so)
            init = [token_statistics(GPT(GPTConfig(**model_args_of(resolve({**config(args.mode, model, depth), **data,
                                                                            'seed': s}), meta, block))),
                                     windows, device) for s in range(args.seeds)]
            trained, runs = [], results[depth]['runs'] if depth in results else []
            for m in runs:
                ckpt = load_checkpoint(Path(m['run_dir']) / 'ckpt.pt')
                net = GPT(GPTConfig(**ckpt['model_args']))
                net.load_state_dict(ckpt['model'])
                trained.append(token_statistics(net, windows, device))
            if depth in results:
                fairs[label] = results[depth]
            statistics[label] = dict(init=init, trained=trained)
            untrained = f'not trained in --{args.mode}'
            rows.append({'model': model, 'depth': depth, 'paper x1e-2': f'{PAPER[model][depth]:.3f}',
                         'cov x1e-2, norm input (init)': common.spread([s['cov in'] for s in init], cov),
                         'cov x1e-2, norm input (trained)': common.spread([s['cov in'] for s in trained], cov)
                         if trained else untrained,
                         'correlation, norm output (init)': common.spread([s['corr out'] for s in init], three),
                         'correlation, norm output (trained)': common.spread([s['corr out'] for s in trained], three)
                         if trained else untrained,
                         'val log ppl (trained)': common.spread([m['val_loss'] for m in runs], three) if runs else ''})
    corpus = ('WikiText-103, GPT-2 tokens' if args.mode == 'full' else
              f"byte-level text ({'smoke file' if args.mode == 'smoke' else args.text or 'common-licenses'})")
    budget = ', '.join(f'{k}={v:.4g}' if isinstance(v, float) else f'{k}={v}' for k, v in protocol['run'].items())
    notes = (f'Data: {corpus}. Every run: {budget}, through the authors\' trainer.py settings (common.authors; the '
             f'random transformer with RoPE). Statistics over the first {n_windows} held-out windows of {block} '
             f'tokens, on each of {args.seeds} seed(s), mean ± std (min–max) over the seeds: the mean over token pairs '
             f'i != j of the covariance (over the features) of the final norm\'s input, the last block\'s '
             f'un-normalized output (the paper\'s quantity, reference.md section 4), and of the correlation of its '
             f'output; "init" is the same model before training. Trained depths: '
             f'{", ".join(map(str, protocol["trained"]))}; val log ppl: held-out log perplexity of the trained models.')
    if protocol['search_at'] and args.search:
        notes += (f" The learning rate is searched at depth {protocol['search_at']} only and reused at the other "
                  f"trained depths (their grid: '-').")
    common.report(args, NAME, 'Table 6: covariance between token representations of the last layer',
                  list(rows[0]), rows, notes=notes, extra={'statistics': statistics}, fairs=fairs, fmt=three)


if __name__ == '__main__':
    main()
