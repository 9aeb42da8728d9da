"""
Samples from a trained run, as nanoGPT's sample.py:

    python sample.py --out_dir=out/<run> --start='Once upon' --num_samples=3 --max_new_tokens=100
    python sample.py --task=text --encoding=bytes --variant=mixit --start='Once upon'  # by its keys

nanoGPT's out_dir is the folder of ckpt.pt: a run's folder given as --out_dir is that run, and
--start is --prompt (under torchrun, whose parser takes --start for its --start-method, give
--prompt). Every other flag is train.py's (temperature, top_k, seed, device, ...), and
`python train.py --sample out/<run> --prompt=...` does the same.
"""

import sys
from pathlib import Path

import torch
from tqdm import tqdm

from checkpoint import load_checkpoint, unchanged
from configurator import RESUMABLE, command_line, find_run, parse_args, resolve
from data import synthetic
from data.loader import prompt_codec
from data.synthetic import ConfigError
from devices import check_fits, pick_device
from model import GPT, GPTConfig


PIECE_TOKENS = 1000  # tokens generated between two updates of the progress bar


@torch.no_grad()
def sample_text(config=None):
    """Continues `prompt` num_samples times with the weights of a run's ckpt.pt (model.generate); ->
    the texts, prompt included. The run is found from its keys, as --resume finds it: its run_name,
    or its training keys."""
    config = dict(config or {})
    ckpt = load_checkpoint(find_run(config, 'sample'), RESUMABLE)
    cfg = resolve({**ckpt['config'], **config})
    unchanged(ckpt, cfg, config, RESUMABLE, 'sample')
    device = pick_device(cfg['device'])
    model = GPT(GPTConfig(**ckpt['model_args']))
    model.load_state_dict(ckpt['model'])
    model.to(device).eval()
    ids, decode = prompt_codec(ckpt['meta'], cfg['prompt'])
    if len(ids) > model.config.block_size:
        raise ConfigError(
            f'the prompt has {len(ids)} tokens; the model reads at most block_size='
            f'{model.config.block_size}: shorten it'
        )
    idx = prompt_batch(model.config, ids, cfg['num_samples'], cfg['max_new_tokens'], device)
    torch.manual_seed(cfg['seed'])
    # a piece at a time, the same draws in the same order as one call: a bar on a terminal says
    # that a long sample (10^6 tokens: minutes) is under way
    out, left = idx, cfg['max_new_tokens']
    with tqdm(total=left, unit='token', disable=None, leave=False) as bar:
        while left:
            n = min(left, PIECE_TOKENS)
            out = model.generate(out, n, cfg['temperature'], cfg['top_k'] or None)
            left -= n
            bar.update(n)
    return [decode([t for t in row if t < ckpt['meta']['vocab_size']]) for row in out.tolist()]


def prompt_batch(c, ids, n, new, device):
    """n copies of the prompt `ids`, to continue by `new` tokens from a model of GPTConfig c, once
    they fit: each takes one forward pass's activations, attention and logits, and 64 bytes a token
    (a tensor, a list, text)."""
    forward, length = (
        4 * c.block_size * (8 * c.n_embd + 2 * c.n_head * c.block_size) + 8 * c.vocab_size,
        len(ids) + new,
    )

    def longest(have):  # the max_new_tokens that fit n samples
        return (have // n - forward) // 64 - len(ids)

    check_fits(
        n * (forward + 64 * length),
        device,
        f'{n:,} samples of {length:,} tokens',
        lambda have: (
            f'{have // (forward + 64 * length):,} such samples fit'
            + (f', or {n:,} of max_new_tokens={longest(have):,}' if longest(have) > 0 else '')
        ),
    )
    return torch.tensor([ids], device=device).repeat(n, 1)


def print_samples(overrides, master=True):
    """Prints the texts of sample_text(overrides); under torchrun each process draws the same
    texts: rank 0 (`master`) shows them."""
    texts = sample_text(overrides)
    if master:
        print('\n---------------\n'.join(texts))


def train_args(argv):
    """nanoGPT's flags as train.py's: --out_dir=<a run's folder> is that folder (out/<run>),
    --start=TEXT is --prompt=TEXT, --sample is what sample.py does; any other argument is
    train.py's own."""
    args = []
    for arg in argv:
        key, eq, value = arg.partition('=')
        if arg == '--sample':
            continue
        if key == '--out_dir' and eq and (Path(value) / 'config.json').exists():
            args.append(value)
        else:
            args.append('--prompt' + eq + value if key == '--start' else arg)
    return args


def main(argv):
    """python sample.py [--key=value ...]: a mistake ends in one line 'error: ...', exit code 2."""
    with command_line() as master:
        if '--help' in argv or '-h' in argv:
            print(__doc__.strip())
        else:
            print_samples(parse_args(['--sample', *train_args(argv)]), master)


if __name__ == '__main__':
    synthetic.end_on_signal()  # Ctrl-C or a kill: no temporary files
    main(sys.argv[1:])
