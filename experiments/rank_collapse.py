"""
Table 6 of "Is Random Attention Sufficient?": the covariance between the last layer's representations of
different tokens of one sequence, for the random transformer (Zhong & Andreas: only embeddings and LM head
trained) and MixiT, at depths 2, 4, 8, 16, 32. The paper: it grows with depth for the random transformer
(representation / rank collapse), it stays flat for MixiT.

What is measured (our reading; the paper gives one sentence: "calculated between the last layer hidden
representations within a sequence ..., then averaged across sequences", on WikiText, for the language
models of Section 5): each model is TRAINED on the language-modeling task, then for every held-out window
of block_size tokens we take the last layer's hidden representations H (T x n), i.e. the output of the
final RMSNorm that the LM head reads (what `hidden_states[-1]` of a Hugging Face model holds; captured by a
forward hook on model.norm_f, model.py untouched). The covariance of tokens i and j is the covariance over
the n features of their vectors (torch.cov of the rows of H: each token centred over its features, divided
by n - 1); the statistic is the mean of the off-diagonal entries i != j, averaged over windows, in units of
1e-2. Beside it, because a covariance depends on the scale the trained norm gains give H: the same mean
over i != j of the correlation (covariance over the two tokens' standard deviations), and both statistics
for the same models AT INITIALIZATION (before any step; the model is a function of its config), which is
what the signal-propagation argument of the paper is about.

Full protocol (the paper's MixiT language-modeling setting, Tables 7 and 8): WikiText-103 with GPT-2 tokens
(prepared beforehand: `python data/wikitext/prepare.py`; the script stops with that message otherwise),
width 512, 8 heads, block 256, batch 512 (64 x 8 accumulation), lr 5e-4 to 5e-5, 40,000 steps, for both
variants at depths 2, 4, 8, 16, 32; statistics over the first 256 held-out windows.

--quick: the 'text' task at byte level on a local UTF-8 file (--text=PATH; without it, the files of
/usr/share/common-licenses, each once), width 64, 4 heads, block 64, batch 16, 600 steps at lr 3e-3, depths 2,
4, 8, 16, 32; statistics over 64 held-out windows. --smoke: a tiny text file written under DATA_DIR, depths 2
and 4, width 16, 2 steps.
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
# per mode: the depths, the held-out windows the statistics average over, and train.py's keys of every run but
# its depth and variant (warm-up min(1000, 10% of the steps), cosine to a tenth of the peak)
PROTOCOL = {
    'full': dict(depths=[2, 4, 8, 16, 32], n_windows=256, run=dict(
        task='wikitext', n_embd=512, n_head=8, block_size=256, batch_size=64, gradient_accumulation_steps=8,
        max_iters=40_000, learning_rate=5e-4, min_lr=5e-5, warmup_iters=1000, eval_interval=2000)),
    'quick': dict(depths=[2, 4, 8, 16, 32], n_windows=64, run=dict(
        task='text', encoding='bytes', n_embd=64, n_head=4, block_size=64, batch_size=16, max_iters=600,
        learning_rate=3e-3, min_lr=3e-4, warmup_iters=60, eval_interval=600)),
    'smoke': dict(depths=[2, 4], n_windows=4, run=dict(
        task='text', encoding='bytes', n_embd=16, n_head=2, block_size=16, batch_size=4, max_iters=2,
        learning_rate=3e-3, min_lr=3e-4, warmup_iters=0, eval_interval=2)),
}


def add_flags(parser):
    parser.add_argument('--text', default='', help='--quick: a UTF-8 file to train on at byte level; '
                                                   "'' = /usr/share/common-licenses/* concatenated")


@torch.no_grad()
def token_statistics(model, windows, device, batch=16):
    """Mean over windows of the mean over i != j of cov(h_i, h_j) and of corr(h_i, h_j), h = the final
    norm's output (the last layer's representation the LM head reads), statistics over the n features."""
    model.eval().to(device)
    captured = []
    hook = model.norm_f.register_forward_hook(lambda module, inputs, output: captured.append(output.float()))
    covs, cors = [], []
    try:
        for x in windows.split(batch):
            captured.clear()
            model(x.to(device))
            h = captured[0]  # (B, T, n)
            h = h - h.mean(-1, keepdim=True)
            cov = h @ h.transpose(1, 2) / (h.shape[-1] - 1)  # (B, T, T) = torch.cov of each window's rows
            std = cov.diagonal(dim1=1, dim2=2).clamp_min(1e-30).sqrt()
            cor = cov / (std[:, :, None] * std[:, None, :])
            off = ~torch.eye(h.shape[1], dtype=torch.bool, device=h.device)
            covs.append(cov[:, off].mean(-1))
            cors.append(cor[:, off].mean(-1))
    finally:
        hook.remove()
    return torch.cat(covs).mean().item(), torch.cat(cors).mean().item()


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
    for variant in ('random', 'mixit'):
        for depth in protocol['depths']:
            m = common.run(args, NAME, **setting, **data, variant=variant, n_layer=depth)
            ckpt = load_checkpoint(Path(m['run_dir']) / 'ckpt.pt')
            init = GPT(GPTConfig(**ckpt['model_args']))  # the same seed: the weights before step 0
            trained = GPT(GPTConfig(**ckpt['model_args']))
            trained.load_state_dict(ckpt['model'])
            cov, cor = token_statistics(trained, windows, device)
            cov0, cor0 = token_statistics(init, windows, device)
            rows.append({'variant': variant, 'depth': depth, 'covariance x1e-2 (trained)': f'{100 * cov:.3f}',
                         'paper x1e-2': f'{PAPER[variant][depth]:.3f}', 'correlation (trained)': f'{cor:.3f}',
                         'covariance x1e-2 (init)': f'{100 * cov0:.3f}', 'correlation (init)': f'{cor0:.3f}',
                         'val log ppl': f"{m['val_loss']:.3f}"})
    corpus = ('WikiText-103, GPT-2 tokens' if args.mode == 'full' else
              f"byte-level text ({'smoke file' if args.mode == 'smoke' else args.text or 'common-licenses'})")
    budget = ', '.join(f'{k}={v}' for k, v in setting.items())
    notes = (f'Data: {corpus}; {budget}. Statistics over the first {n_windows} held-out windows of {block} tokens: '
             f'mean over token pairs i != j of the covariance (over the features) of the final-norm outputs, and '
             f'of their correlation; "init" is the same model before training.')
    common.report(args, NAME, 'Table 6: covariance between token representations of the last layer',
                  list(rows[0]), rows, notes=notes)


if __name__ == '__main__':
    main()
