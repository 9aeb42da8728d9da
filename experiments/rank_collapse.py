"""
Table 6 of "Is Random Attention Sufficient?": the covariance between the last layer's representations of
different tokens of one sequence, for the random transformer (Zhong & Andreas: only embeddings and LM head
trained) and MixiT, at depths 2, 4, 8, 16, 32. The paper: it grows with depth for the random transformer
(representation / rank collapse), it stays flat for MixiT.

What is measured (ours: their repository has no code for this table, the paper one sentence: "calculated between
the last layer hidden representations within a sequence ..., then averaged across sequences", on WikiText, for
the language models of Section 5): each model is TRAINED on the language-modeling task, then for every held-out
window of block_size tokens we take the last layer's hidden representations H (T x n), both the output of the
final RMSNorm that the LM head reads (what `hidden_states[-1]` of a Hugging Face Llama holds) and its input, the
last block's un-normalized output (whose magnitudes match the paper's, reference.md section 4); captured by a
forward hook on model.norm_f, model.py untouched. The covariance of tokens i and j is the covariance over the n
features of their vectors (torch.cov of the rows of H: each token centred over its features, divided by n - 1);
the statistic is the mean of the off-diagonal entries i != j, averaged over windows, in units of 1e-2. Beside
it, because a covariance depends on the scale of H: the mean over i != j of the correlation (covariance over
the two tokens' standard deviations) of the norm's output, and every statistic for the same models AT
INITIALIZATION (before any step; the model is a function of its config), which is what the
signal-propagation argument of the paper is about.

Full protocol: settings of the authors' code (github princeton-pli/MixiT, reference.md section 4) unless marked:
- models: MixiT as their trainer.py builds it (language_modeling.py: their MixiT block with gate c = -1 and skip
  scaling 0.5); the random transformer as their code has it, a plain Llama (RoPE) with only the token embedding
  and LM head trained (depth.py's weight_frozen=1: trainer.py cannot freeze the blocks), variant random with
  pos='rope' (Zhong & Andreas' own, GPT-2-like with learned positions, is --quick's); depths 2, 4, 8, 16, 32
  (paper text, Table 6).
- optimizer (common.authors, driver trainer.py): AdamW (0.9, 0.999), weight decay 0.01, warm-up max(4% of the
  steps, 500) = 1,600, linear decay to 0, N(0, 0.02) weights, biases; lr 5e-4, batch 512 (64 x 8 accumulation),
  40,000 steps, width 512, 8 heads, block 256: Table 8's language-modeling setting (paper text, and their
  README's trainer.py command).
- data: WikiText-103 with GPT-2 tokens in contiguous windows (ours: their Llama-3.2 tokenizer and one padded
  row per line cannot be reproduced offline); prepared beforehand (`python data/wikitext/prepare.py`; the script
  stops with that message otherwise); statistics over the first 256 held-out windows (ours).

--quick (ours; train.py's optimizer defaults): the 'text' task at byte level on a local UTF-8 file
(--text=PATH; without it, the files of /usr/share/common-licenses, each once), width 64, 4 heads, block 64,
batch 16, 600 steps at lr 3e-3, depths 2, 4, 8, 16, 32; statistics over 64 held-out windows. --smoke: the full
protocol's models and optimizer on a tiny text file written under DATA_DIR, depths 2 and 4, width 16, 2 steps.
Claim the quick protocol tests: the covariance (and correlation) between tokens of the random transformer
grows with depth, while MixiT's stays small and does not grow with depth.
"""
from pathlib import Path

import numpy as np
import torch

import common
from data.loader import pick_device
from model import GPT, GPTConfig
from train import load_checkpoint

NAME = 'rank_collapse'
PAPER = {'random': {2: 0.218, 4: 1.450, 8: 2.075, 16: 1.946, 32: 5.438},
         'mixit': {2: 0.088, 4: 0.260, 8: 0.210, 16: 0.154, 32: 0.104}}
# per mode: the depths, the held-out windows the statistics average over, the driver of the authors' code whose
# settings the runs take (common.authors; None: ours), and train.py's keys of every run but its model and depth
THEIRS = {'random': dict(pos='rope'), 'mixit': {}}  # their random transformer: a plain Llama, with RoPE
PROTOCOL = {
    'full': dict(depths=[2, 4, 8, 16, 32], n_windows=256, driver='trainer.py', models=THEIRS, run=dict(
        task='wikitext', n_embd=512, n_head=8, block_size=256, batch_size=64, gradient_accumulation_steps=8,
        max_iters=40_000, learning_rate=5e-4, eval_interval=2000)),
    'quick': dict(depths=[2, 4, 8, 16, 32], n_windows=64, driver=None, models={v: {} for v in PAPER}, run=dict(
        task='text', encoding='bytes', n_embd=64, n_head=4, block_size=64, batch_size=16, max_iters=600,
        learning_rate=3e-3, min_lr=3e-4, warmup_iters=60, eval_interval=600)),
    'smoke': dict(depths=[2, 4], n_windows=4, driver='trainer.py', models=THEIRS, run=dict(
        task='text', encoding='bytes', n_embd=16, n_head=2, block_size=16, batch_size=4, max_iters=2,
        learning_rate=3e-3, warmup_iters=0, eval_interval=2)),
}


def config(mode, model, depth):
    """train.py's keys of one run but its data_dir."""
    p = PROTOCOL[mode]
    return common.authors(p['driver'], model, **p['models'][model], **p['run'], n_layer=depth)


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
    args = common.parse_args(__doc__, add_flags)
    protocol = PROTOCOL[args.mode]
    setting, block = protocol['run'], protocol['run']['block_size']
    if args.mode == 'full':
        directory, data = common.corpus_dirs(args, ['wikitext'], 'run this script with --quick')[0], {}
    else:
        directory = common.byte_text(args, NAME)
        data = dict(data_dir=str(directory))
    val = np.memmap(directory / 'val.bin', dtype=np.uint16, mode='r')
    n_windows = min(protocol['n_windows'], len(val) // block)
    windows = torch.from_numpy(val[:n_windows * block].astype(np.int64)).view(n_windows, block)
    device = pick_device(args.device)
    rows = []
    for model in PAPER:
        for depth in protocol['depths']:
            m = common.run(args, NAME, **config(args.mode, model, depth), **data)
            ckpt = load_checkpoint(Path(m['run_dir']) / 'ckpt.pt')
            init = GPT(GPTConfig(**ckpt['model_args']))  # the same seed: the weights before step 0
            trained = GPT(GPTConfig(**ckpt['model_args']))
            trained.load_state_dict(ckpt['model'])
            t, i = token_statistics(trained, windows, device), token_statistics(init, windows, device)
            rows.append({'model': model, 'depth': depth, 'paper x1e-2': f'{PAPER[model][depth]:.3f}',
                         'cov x1e-2, norm input (trained)': f"{100 * t['cov in']:.3f}",
                         'cov x1e-2, norm output (trained)': f"{100 * t['cov out']:.3f}",
                         'correlation (trained)': f"{t['corr out']:.3f}",
                         'cov x1e-2, norm input (init)': f"{100 * i['cov in']:.3f}",
                         'cov x1e-2, norm output (init)': f"{100 * i['cov out']:.3f}",
                         'correlation (init)': f"{i['corr out']:.3f}", 'val log ppl': f"{m['val_loss']:.3f}"})
    corpus = ('WikiText-103, GPT-2 tokens' if args.mode == 'full' else
              f"byte-level text ({'smoke file' if args.mode == 'smoke' else args.text or 'common-licenses'})")
    models = {m: {k: v for k, v in config(args.mode, m, 0).items() if k not in setting and k != 'n_layer'}
              for m in PAPER}  # what each model's runs add: the variant and, but in --quick, the authors' settings
    budget = '; '.join(f"{k}: {', '.join(f'{a}={b}' for a, b in v.items())}"
                       for k, v in {'every run': setting, **models}.items())
    notes = (f'Data: {corpus}. Settings: {budget}. Statistics over the first {n_windows} held-out windows of {block} '
             f'tokens: mean over token pairs i != j of the covariance (over the features) of the final norm\'s input '
             f'(the last block\'s output) and output, and of the output\'s correlation; "init" is the same model '
             f'before training.')
    common.report(args, NAME, 'Table 6: covariance between token representations of the last layer',
                  list(rows[0]), rows, notes=notes)


if __name__ == '__main__':
    main()
